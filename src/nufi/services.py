"""The composition root: everything a NuFi process serves with, built from one `Settings`.

Both faces (the REST API and the dashboard) take their services from here, so they share one
catalog, one monitoring service and one set of gateways per process. Gateways passed in belong to the
caller, who closes them; those built here are closed when the context ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from nufi.alerts.desired import DesiredRules
from nufi.alerts.placement import target_choice
from nufi.alerts.service import AlertService
from nufi.alerts.sync import RuleSync
from nufi.auth import TokenVerifier
from nufi.auth.web_sessions import WebSessions
from nufi.background.board import Background
from nufi.background.jobs import MONITORING_REFRESH, THERMAL_CONTROL, job_named
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.cluster.cache import CacheSettings, ClusterCache
from nufi.cluster.labs import LabObjects
from nufi.cluster.lease import LeaderElector
from nufi.cluster.service_account import own_service_account
from nufi.cluster.service_route import ServiceClient
from nufi.config import Settings
from nufi.db import Database as Database  # re-exported: the faces name it from here, never from nufi.db
from nufi.db import WebSessionStore
from nufi.db.wizard_drafts import WizardDraftStore
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.drafts import WizardDrafts
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.events import Events, Parts, wire
from nufi.health import DependencyCheck, Readiness
from nufi.logging import get_logger
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots.lag import LagCheck
from nufi.packs.service import PackService
from nufi.prom import PrometheusGateway
from nufi.thermal.history.records import ThermalRecords
from nufi.thermal.protection.controller import ControllerSettings, ThermalController
from nufi.thermal.service import ThermalService
from nufi.workloads.accelerators import AcceleratorService
from nufi.workloads.deployments.service import DeploymentService
from nufi.workloads.labs.service import LabService, LabSettings
from nufi.workloads.projects.service import ProjectService
from nufi.workloads.quotas.room import QuotaSpec
from nufi.workloads.quotas.service import QuotaService
from nufi.workloads.reconcile import Reconciler
from nufi.workloads.usage import WorkloadDeviceUsage

_log = get_logger("nufi.services")


@dataclass(frozen=True)
class Services:
    # The one settings tree this process was built from.
    settings: Settings
    cluster: ClusterGateway
    # How the domains read nodes and pods: from `cluster_cache` while it serves, else listed.
    cluster_reader: ClusterReader
    prometheus: PrometheusGateway
    # Sessions and transactions for the repositories in nufi.db.
    database: Database
    readiness: Readiness
    # The device catalog and the fetchers that read each type's devices.
    catalog: DeviceCatalog
    fetchers: FetcherRegistry
    # Each type's live snapshot, shared per replica, its streams and time ranges.
    monitoring: MonitoringService
    # The Add Device wizard's drafts, kept in the database so any replica resumes them.
    wizard_drafts: WizardDrafts
    # Projects (namespaces with members) and the accelerators their workloads may ask for.
    projects: ProjectService
    # The accelerators a workload may ask for, with what each project's quota leaves of them.
    accelerators: AcceleratorService
    # Accelerator, storage and pod quotas per project (one ResourceQuota each).
    quotas: QuotaService
    # Inference deployments (a Deployment and a Service each) in projects.
    deployments: DeploymentService
    # Jupyter / VS Code labs, and the client the lab proxy reaches their Services with (NUFI_LAB_ROUTE).
    labs: LabService
    lab_upstreams: ServiceClient
    # Temperature policies, status and history; the controller acts only where this replica leads.
    thermal: ThermalService
    # Alerting rules made from each type, kept written where Prometheus reads them; alerts firing now.
    alerts: AlertService
    # Device packs: types with their protection and alert thresholds, exported and applied as YAML.
    packs: PackService
    # Every background job of this process (nufi.background.jobs lists them), each on /readyz and /metrics.
    background: Background
    # The change events (device types, thermal policies, sessions) and every subscriber of each.
    events: Events
    # None when NUFI_OIDC_ISSUER is unset: every authenticated route then answers 401.
    verifier: TokenVerifier | None = None
    # Nodes and pods from watches, which `cluster_reader` serves once synced; None when Kubernetes is
    # not configured or NUFI_CLUSTER_CACHE_ENABLED is false.
    cluster_cache: ClusterCache | None = None
    # Dashboard sign-in and its server-side sessions; None unless NUFI_OIDC_ISSUER,
    # NUFI_OIDC_CLIENT_ID and NUFI_DASHBOARD_SESSION_SECRET are all set.
    web_sessions: WebSessions | None = None
    # None when Kubernetes is not configured or NUFI_THERMAL_ENABLED is false.
    thermal_controller: ThermalController | None = None


@asynccontextmanager
async def build_services(
    settings: Settings,
    *,
    cluster: ClusterGateway | None = None,
    prometheus: PrometheusGateway | None = None,
    database: Database | None = None,
    extra_checks: Sequence[DependencyCheck] = (),
) -> AsyncIterator[Services]:
    """Gateways and domain services for `settings`; the database is migrated first unless
    NUFI_DATABASE_MIGRATE_ON_START is false. The database always joins the readiness report;
    `extra_checks` join it too."""
    async with AsyncExitStack() as owned:
        gateways = await _gateways(owned, settings, cluster, prometheus, database)
        background = Background(single_connection=gateways.database.single_connection)
        cluster_cache = _cluster_cache(settings, gateways.cluster, background)
        reader = ClusterReader(gateways.cluster, cluster_cache)
        domains = _domains(owned, settings, gateways, reader)
        if gateways.cluster.configured:
            background.add(_reconciler(settings, domains.projects).job)
        thermal_controller = _thermal(settings, gateways, domains, background)
        thermal = ThermalService(
            catalog=domains.catalog,
            monitoring=domains.monitoring,
            cluster=gateways.cluster,
            database=gateways.database,
            projects=domains.projects,
            controller=thermal_controller,
        )
        alerts = _alerts(settings, gateways, domains, cluster_cache)
        events = _events(owned, gateways, domains, thermal, alerts)
        _start(owned, background, alerts, domains.monitoring)
        yield Services(
            settings=settings,
            cluster=gateways.cluster,
            cluster_reader=reader,
            prometheus=gateways.prometheus,
            database=gateways.database,
            readiness=_readiness(
                settings, gateways, domains, cluster_cache, alerts, background, extra_checks
            ),
            catalog=domains.catalog,
            fetchers=domains.fetchers,
            monitoring=domains.monitoring,
            wizard_drafts=WizardDrafts(WizardDraftStore(gateways.database.sessions)),
            projects=domains.projects,
            accelerators=domains.accelerators,
            quotas=domains.quotas,
            deployments=domains.deployments,
            labs=domains.labs,
            lab_upstreams=domains.lab_upstreams,
            verifier=gateways.verifier,
            cluster_cache=cluster_cache,
            web_sessions=gateways.web_sessions,
            thermal=thermal,
            alerts=alerts,
            packs=PackService(catalog=domains.catalog, thermal=thermal, alerts=alerts),
            thermal_controller=thermal_controller,
            background=background,
            events=events,
        )


def _events(
    owned: AsyncExitStack,
    gateways: _Gateways,
    domains: _Domains,
    thermal: ThermalService,
    alerts: AlertService,
) -> Events:
    """The change events, wired to their publishers; shutting down waits for their follow-ups."""
    events = Events(Parts(domains.monitoring, domains.quotas, alerts.sync, domains.labs))
    wire(events, catalog=domains.catalog, thermal=thermal, web_sessions=gateways.web_sessions)
    owned.push_async_callback(events.wait_following)
    return events


def _start(
    owned: AsyncExitStack, background: Background, alerts: AlertService, monitoring: MonitoringService
) -> None:
    """Every background job started together, and stopped before what they read closes (the stack
    unwinds in reverse)."""
    background.add(alerts.sync.job)
    background.add_source(
        job_named(MONITORING_REFRESH), lambda: [t.stats.job_status(t.refreshing) for t in monitoring.stats()]
    )
    background.start()
    owned.push_async_callback(background.close)


def _readiness(
    settings: Settings,
    gateways: _Gateways,
    domains: _Domains,
    cluster_cache: ClusterCache | None,
    alerts: AlertService,
    background: Background,
    extra_checks: Sequence[DependencyCheck],
) -> Readiness:
    """Only what nothing can be served without makes a replica unready (docs/install.md, §6)."""
    return Readiness(
        [gateways.database.check, *extra_checks],
        reported=[
            gateways.cluster,
            *([] if cluster_cache is None else [cluster_cache]),
            gateways.prometheus,
            alerts.sync,
            *background.checks(),
            LagCheck(
                domains.monitoring.lags,
                domains.monitoring.settings.stale_after_seconds,
                configured=gateways.prometheus.configured,
            ),
        ],
        timeout_seconds=settings.readiness_timeout_seconds,
    )


@dataclass(frozen=True)
class _Gateways:
    cluster: ClusterGateway
    prometheus: PrometheusGateway
    database: Database
    verifier: TokenVerifier | None
    web_sessions: WebSessions | None


async def _gateways(
    owned: AsyncExitStack,
    settings: Settings,
    cluster: ClusterGateway | None,
    prometheus: PrometheusGateway | None,
    database: Database | None,
) -> _Gateways:
    """The gateways the caller did not pass in, built and closed with `owned`; the database migrated."""
    if cluster is None:
        cluster = ClusterGateway.from_settings(settings)
        owned.push_async_callback(cluster.close)
    if prometheus is None:
        prometheus = PrometheusGateway.from_settings(settings)
        owned.push_async_callback(prometheus.close)
    verifier = TokenVerifier.from_settings(settings)
    if verifier is not None:
        owned.push_async_callback(verifier.close)
    if database is None:
        database = Database.from_settings(settings)
        owned.push_async_callback(database.close)
    if settings.database_migrate_on_start:
        await database.upgrade()
    web_sessions = WebSessions.from_settings(
        settings, verifier=verifier, store=WebSessionStore(database.sessions)
    )
    if web_sessions is not None:
        owned.push_async_callback(web_sessions.close)
    return _Gateways(cluster, prometheus, database, verifier, web_sessions)


def _cluster_cache(
    settings: Settings, cluster: ClusterGateway, background: Background
) -> ClusterCache | None:
    """The watch-fed cache of nodes and pods, its watches added to `background`; None when Kubernetes
    is not configured or NUFI_CLUSTER_CACHE_ENABLED is false."""
    if not (settings.cluster_cache_enabled and cluster.configured):
        return None
    cache = ClusterCache(cluster, CacheSettings.from_settings(settings))
    background.add(*cache.jobs)
    return cache


@dataclass(frozen=True)
class _Domains:
    fetchers: FetcherRegistry
    catalog: DeviceCatalog
    projects: ProjectService
    monitoring: MonitoringService
    accelerators: AcceleratorService
    quotas: QuotaService
    lab_upstreams: ServiceClient
    deployments: DeploymentService
    labs: LabService


def _domains(
    owned: AsyncExitStack, settings: Settings, gateways: _Gateways, reader: ClusterReader
) -> _Domains:
    """The domain services; everything that reads nodes and pods reads them through `reader`."""
    cluster, database = gateways.cluster, gateways.database
    fetchers = FetcherRegistry.with_plugins()
    catalog = DeviceCatalog(
        database, reader, gateways.prometheus, fetchers, usage=WorkloadDeviceUsage(cluster)
    )
    projects = ProjectService(
        cluster,
        database,
        workload_role=settings.project_role,
        service_account=own_service_account(cluster.source, settings.project_service_account),
    )
    # Non-admins see other projects' pods in monitoring as "another project".
    monitoring = MonitoringService(
        catalog,
        fetchers,
        reader,
        gateways.prometheus,
        MonitoringSettings.from_settings(settings),
        visibility=projects,
    )
    quotas = QuotaService(cluster, projects, catalog, defaults=_default_quota(settings))
    accelerators = AcceleratorService(catalog, fetchers, reader, quotas=quotas)
    # Before the gateways close: no refresher outlives the clients it evaluates with.
    owned.push_async_callback(monitoring.close)
    lab_upstreams = ServiceClient.from_settings(settings, cluster)
    owned.push_async_callback(lab_upstreams.close)
    deployments = DeploymentService(projects, accelerators, cluster, monitoring=monitoring)
    labs = LabService(
        projects, accelerators, LabObjects(cluster), LabSettings.from_settings(settings), lab_upstreams
    )
    return _Domains(
        fetchers, catalog, projects, monitoring, accelerators, quotas, lab_upstreams, deployments, labs
    )


def _default_quota(settings: Settings) -> QuotaSpec:
    return QuotaSpec(
        devices=dict(settings.project_default_quota_devices),
        storage=settings.project_default_quota_storage,
        pods=settings.project_default_quota_pods,
    )


def _reconciler(settings: Settings, projects: ProjectService) -> Reconciler:
    # Every settler is registered (by the domain services): intents a crash left open are settled
    # from the cluster, at start and then periodically.
    return Reconciler(
        projects.recorder,
        settle_after_seconds=settings.intent_settle_after_seconds,
        interval_seconds=settings.intent_reconcile_interval_seconds,
        lease_seconds=settings.intent_lease_seconds,
    )


def _alerts(
    settings: Settings, gateways: _Gateways, domains: _Domains, cluster_cache: ClusterCache | None
) -> AlertService:
    """The alerts service and its rule sync (a background job)."""
    sync = RuleSync(
        DesiredRules(domains.catalog, gateways.database),
        target_choice(settings, gateways.cluster, gateways.prometheus),
        interval_seconds=settings.alerts_sync_seconds,
    )
    return AlertService(
        catalog=domains.catalog,
        database=gateways.database,
        prometheus=gateways.prometheus,
        visibility=domains.projects,
        sync=sync,
        nodes=(lambda: None) if cluster_cache is None else cluster_cache.node_list,
        alertmanager_url=settings.alertmanager_url,
    )


def _thermal(
    settings: Settings, gateways: _Gateways, domains: _Domains, background: Background
) -> ThermalController | None:
    """The thermal controller, its jobs added to `background`; None when Kubernetes is not configured,
    NUFI_THERMAL_ENABLED is false or the database is in memory."""
    if not (settings.thermal_enabled and gateways.cluster.configured):
        return None
    if not background.allows(job_named(THERMAL_CONTROL)):
        _log.warning("thermal control not started: the database is in memory (one connection)")
        return None
    elector = LeaderElector.for_thermal(gateways.cluster, settings)
    monitoring = domains.monitoring.settings
    controller = ThermalController(
        catalog=domains.catalog,
        monitoring=domains.monitoring,
        cluster=gateways.cluster,
        records=ThermalRecords(gateways.database.sessions),
        elector=elector,
        settings=ControllerSettings(
            interval_seconds=settings.thermal_interval_seconds or monitoring.refresh_seconds / 2,
            max_snapshot_age_seconds=monitoring.stale_after_seconds,
        ),
        identity=elector.identity,
        prometheus=gateways.prometheus,
    )
    background.add(*controller.jobs)
    return controller
