"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI

from nufi import __version__
from nufi.api import (
    admin_devices,
    alerts,
    cli_auth,
    deployments,
    devices,
    health,
    labs,
    me,
    metrics,
    monitoring,
    packs,
    projects,
    quotas,
    thermal,
    version,
)
from nufi.api.cached_reads import CachedReadsMiddleware
from nufi.api.edge.guard import install_request_guard
from nufi.api.edge.middleware import RequestContextMiddleware
from nufi.api.edge.security_headers import SecurityHeadersMiddleware
from nufi.api.edge.strict_json import install_strict_json
from nufi.api.labproxy import LabProxyMiddleware
from nufi.api.metrics import HttpMetrics
from nufi.api.openapi import install_openapi
from nufi.api.problems import install_problem_handlers
from nufi.api.snapshot_pages import RenderedPages
from nufi.cluster import ClusterGateway
from nufi.config import Settings, load_settings
from nufi.health import DependencyCheck
from nufi.logging import get_logger
from nufi.prom import PrometheusGateway
from nufi.services import Database, build_services

_log = get_logger("nufi.api")


def create_app(
    settings: Settings | None = None,
    *,
    cluster: ClusterGateway | None = None,
    prometheus: PrometheusGateway | None = None,
    database: Database | None = None,
    extra_checks: Sequence[DependencyCheck] = (),
    api: bool = True,
) -> FastAPI:
    """Build the NuFi server; with `api=False` only its probes, metrics and version (the dashboard's
    own Deployment, `nufi serve --ui-only`).

    Gateways not passed in are built from `settings` when the app starts and closed when it stops;
    gateways passed in belong to the caller, who closes them. The same holds for `database`; unless
    NUFI_DATABASE_MIGRATE_ON_START is false its schema is migrated before the app serves. The
    database always joins the readiness report; `extra_checks` join it too.
    """
    resolved = settings if settings is not None else load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with build_services(
            resolved, cluster=cluster, prometheus=prometheus, database=database, extra_checks=extra_checks
        ) as services:
            app.state.services = services
            app.state.http_metrics.watch(services.monitoring)
            app.state.http_metrics.watch_thermal(services.thermal_controller)
            app.state.http_metrics.watch_capacity(services.alerts)
            app.state.http_metrics.watch_background(services.background)
            _log.info("NuFi starting", version=__version__, settings=resolved.redacted())
            try:
                yield
            finally:
                app.state.http_metrics.watch(None)
                app.state.http_metrics.watch_thermal(None)
                app.state.http_metrics.watch_capacity(None)
                app.state.http_metrics.watch_background(None)
                del app.state.services
                _log.info("NuFi stopping")

    app = FastAPI(
        title="NuFi",
        version=__version__,
        summary="Run AI workloads on any accelerator in a Kubernetes cluster.",
        lifespan=lifespan,
    )
    app.state.settings = resolved
    app.state.http_metrics = HttpMetrics()
    app.state.snapshot_pages = RenderedPages()
    app.state.http_metrics.watch_pages(app.state.snapshot_pages)
    install_problem_handlers(app)
    install_openapi(app)
    _install_middleware(app, resolved)
    _include_routers(app, api=api)
    return app


def _install_middleware(app: FastAPI, settings: Settings) -> None:
    # The last added runs first: the request id and access log wrap the guard, which checks a body's
    # size and the caller's token before anything reads the body.
    # Inside the guard: a JSON body's numbers are checked finite once it is bounded and authenticated.
    install_strict_json(app)
    install_request_guard(app, max_body_bytes=settings.max_request_body_bytes)
    # The lab proxy answers /labs/... and /notebook/... itself, outside the guard: a lab's uploads are
    # the lab's to limit. Both faces have it, so a lab opens wherever the dashboard does.
    app.add_middleware(LabProxyMiddleware)
    # Snapshot reads NuFi has the answer to already skip routing; inside the request id and access log.
    app.add_middleware(CachedReadsMiddleware)
    app.add_middleware(RequestContextMiddleware, metrics=app.state.http_metrics)
    app.add_middleware(
        SecurityHeadersMiddleware, issuer=settings.oidc_issuer, docs_paths=(app.docs_url, app.redoc_url)
    )


def _include_routers(app: FastAPI, *, api: bool) -> None:
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(version.router)
    if not api:
        return
    app.include_router(me.router)
    app.include_router(cli_auth.router)
    app.include_router(devices.router)
    app.include_router(admin_devices.router)
    app.include_router(monitoring.router)
    app.include_router(projects.admin_router)
    app.include_router(projects.router)
    app.include_router(quotas.admin_router)
    app.include_router(quotas.router)
    app.include_router(deployments.router)
    app.include_router(labs.router)
    app.include_router(thermal.router)
    app.include_router(thermal.admin_router)
    app.include_router(thermal.override_router)
    app.include_router(alerts.router)
    app.include_router(alerts.admin_router)
    app.include_router(packs.router)
    app.include_router(packs.admin_router)
