"""The composition root: everything a NuFi process serves with, built from one `Settings`.

Both faces (the REST API and the dashboard) take their services from here, so they share one
catalog, one monitoring service and one set of gateways per process. Gateways passed in belong to the
caller, who closes them; those built here are closed when the context ends.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from nufi.auth import TokenVerifier
from nufi.auth.web_sessions import WebSessions
from nufi.cluster import ClusterGateway
from nufi.cluster.cache import CacheSettings, ClusterCache
from nufi.cluster.labs import LabObjects
from nufi.cluster.lease import LeaderElector
from nufi.cluster.service_account import own_service_account
from nufi.cluster.service_route import ServiceClient
from nufi.config import Settings
from nufi.db import Database as Database  # re-exported: the faces name it from here, never from nufi.db
from nufi.db import WebSessionStore
from nufi.db.wizard_drafts import WizardDraftStore
from nufi.devices import FetcherRegistry
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.drafts import WizardDrafts
from nufi.health import DependencyCheck, Readiness
from nufi.logging import get_logger
from nufi.monitoring import MonitoringService, MonitoringSettings
from nufi.prom import PrometheusGateway
from nufi.thermal.controller import ControllerSettings, ThermalController
from nufi.thermal.history import ThermalRecords
from nufi.thermal.service import ThermalService
from nufi.workloads.accelerators import AcceleratorService
from nufi.workloads.deployments import DeploymentService
from nufi.workloads.labs import LabService, LabSettings
from nufi.workloads.projects import ProjectService
from nufi.workloads.reconcile import Reconciler
from nufi.workloads.usage import WorkloadDeviceUsage

_log = get_logger("nufi.services")


@dataclass(frozen=True)
class Services:
    settings: Settings
    cluster: ClusterGateway
    prometheus: PrometheusGateway
    # Sessions and transactions for the repositories in nufi.db.
    database: Database
    readiness: Readiness
    # The device catalog and the fetchers that read each type's devices.
    catalog: DeviceCatalog
    fetchers: FetcherRegistry
    monitoring: MonitoringService
    # The Add Device wizard's drafts, kept in the database so any replica resumes them.
    wizard_drafts: WizardDrafts
    # Projects (namespaces with members) and the accelerators their workloads may ask for.
    projects: ProjectService
    accelerators: AcceleratorService
    # Inference deployments (a Deployment and a Service each) in projects.
    deployments: DeploymentService
    # Jupyter / VS Code labs, and the client the lab proxy reaches their Services with (NUFI_LAB_ROUTE).
    labs: LabService
    lab_upstreams: ServiceClient
    # Temperature policies, status and history; the controller acts only where this replica leads.
    thermal: ThermalService
    # None when NUFI_OIDC_ISSUER is unset: every authenticated route then answers 401.
    verifier: TokenVerifier | None = None
    # Nodes and pods from watches, attached to `cluster` so every read of it is served from the cache
    # once synced; None when Kubernetes is not configured or NUFI_CLUSTER_CACHE_ENABLED is false.
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
        cluster_cache = None
        if settings.cluster_cache_enabled and cluster.configured:
            cluster_cache = _start_cache(cluster, CacheSettings.from_settings(settings))
            owned.push_async_callback(_stop_cache, cluster, cluster_cache)
        cache_checks = [] if cluster_cache is None else [cluster_cache]
        fetchers = FetcherRegistry.with_plugins()
        catalog = DeviceCatalog(database, cluster, prometheus, fetchers, usage=WorkloadDeviceUsage(cluster))
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
            cluster,
            prometheus,
            MonitoringSettings.from_settings(settings),
            visibility=projects,
        )
        accelerators = AcceleratorService(catalog, fetchers, cluster)
        # Before the gateways close: no refresher outlives the clients it evaluates with.
        owned.push_async_callback(monitoring.close)
        lab_upstreams = ServiceClient.from_settings(settings, cluster)
        owned.push_async_callback(lab_upstreams.close)
        deployments = DeploymentService(projects, accelerators, cluster, monitoring=monitoring)
        labs = LabService(projects, accelerators, LabObjects(cluster), LabSettings.from_settings(settings))
        if cluster.configured and not database.single_connection:
            # Every settler is registered (by the three services above): intents a crash left open are
            # settled from the cluster, at start and then periodically.
            reconciler = Reconciler(
                projects.recorder,
                settle_after_seconds=settings.intent_settle_after_seconds,
                interval_seconds=settings.intent_reconcile_interval_seconds,
            )
            reconciler.start()
            owned.push_async_callback(reconciler.close)
        thermal_controller = None
        if settings.thermal_enabled and cluster.configured and database.single_connection:
            # An in-memory database cannot serve a background loop beside requests (one connection).
            _log.warning("thermal control not started: the database is in memory (one connection)")
        elif settings.thermal_enabled and cluster.configured:
            thermal_controller = _thermal_controller(settings, cluster, catalog, monitoring, database)
            thermal_controller.start()
            # Before monitoring closes: the controller reads its refreshers.
            owned.push_async_callback(thermal_controller.close)
        yield Services(
            settings=settings,
            cluster=cluster,
            prometheus=prometheus,
            database=database,
            readiness=Readiness(
                [cluster, *cache_checks, prometheus, database.check, *extra_checks],
                timeout_seconds=settings.readiness_timeout_seconds,
            ),
            catalog=catalog,
            fetchers=fetchers,
            monitoring=monitoring,
            wizard_drafts=WizardDrafts(WizardDraftStore(database.sessions)),
            projects=projects,
            accelerators=accelerators,
            deployments=deployments,
            labs=labs,
            lab_upstreams=lab_upstreams,
            verifier=verifier,
            cluster_cache=cluster_cache,
            web_sessions=web_sessions,
            thermal=ThermalService(
                catalog=catalog,
                monitoring=monitoring,
                cluster=cluster,
                database=database,
                projects=projects,
                controller=thermal_controller,
            ),
            thermal_controller=thermal_controller,
        )


def _thermal_controller(
    settings: Settings,
    cluster: ClusterGateway,
    catalog: DeviceCatalog,
    monitoring: MonitoringService,
    database: Database,
) -> ThermalController:
    identity = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
    account = own_service_account(cluster.source, settings.project_service_account)
    namespace = settings.thermal_lease_namespace or (account.namespace if account else "default")
    elector = LeaderElector(
        cluster,
        namespace=namespace,
        name=settings.thermal_lease_name,
        identity=identity,
        lease_seconds=settings.thermal_lease_seconds,
        renew_deadline_seconds=settings.thermal_renew_deadline_seconds,
        retry_seconds=settings.thermal_retry_seconds,
    )
    refresh = monitoring.settings.refresh_seconds
    return ThermalController(
        catalog=catalog,
        monitoring=monitoring,
        cluster=cluster,
        records=ThermalRecords(database.sessions),
        elector=elector,
        settings=ControllerSettings(
            interval_seconds=settings.thermal_interval_seconds or refresh / 2,
            max_snapshot_age_seconds=monitoring.settings.stale_after_seconds,
        ),
        identity=identity,
    )


def _start_cache(cluster: ClusterGateway, settings: CacheSettings) -> ClusterCache:
    cache = ClusterCache(cluster, settings)
    cluster.attach_cache(cache)
    cache.start()
    return cache


async def _stop_cache(cluster: ClusterGateway, cache: ClusterCache) -> None:
    # Before the gateway closes (the stack unwinds in reverse): no watch outlives its client.
    if cluster.cache is cache:
        cluster.attach_cache(None)
    await cache.close()
