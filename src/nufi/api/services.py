"""What the lifespan builds and the routers use, reached through FastAPI dependencies."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from nufi.auth import TokenVerifier
from nufi.cluster import ClusterGateway
from nufi.config import Settings
from nufi.db import Database
from nufi.devices import FetcherRegistry
from nufi.devices.catalog import DeviceCatalog
from nufi.health import Readiness
from nufi.monitoring import MonitoringService
from nufi.prom import PrometheusGateway


@dataclass(frozen=True)
class AppServices:
    settings: Settings
    cluster: ClusterGateway
    prometheus: PrometheusGateway
    readiness: Readiness
    # Sessions and transactions for the repositories in nufi.db.
    database: Database
    # The device catalog and the fetchers that read each type's devices.
    catalog: DeviceCatalog
    fetchers: FetcherRegistry
    # None when NUFI_OIDC_ISSUER is unset: every authenticated route then answers 401.
    verifier: TokenVerifier | None = None
    # Snapshots and time ranges of the device types; built by the lifespan.
    monitoring: MonitoringService | None = None


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_database(request: Request) -> Database:
    return get_services(request).database


def get_services(request: Request) -> AppServices:
    services = getattr(request.app.state, "services", None)
    if not isinstance(services, AppServices):
        # Only reachable when an app is driven without its lifespan, e.g. a bare ASGI transport.
        raise RuntimeError("NuFi services are not started; run the app with its lifespan")
    return services


def get_catalog(request: Request) -> DeviceCatalog:
    return get_services(request).catalog


def get_monitoring(request: Request) -> MonitoringService:
    monitoring = get_services(request).monitoring
    if monitoring is None:
        raise RuntimeError("the monitoring service was not built; run the app with its lifespan")
    return monitoring
