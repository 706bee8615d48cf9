"""The services the lifespan builds (`nufi.services`), reached by the routers through FastAPI dependencies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from nufi.api.snapshot_pages import RenderedPages
from nufi.config import Settings
from nufi.devices.catalog import DeviceCatalog
from nufi.monitoring.service import MonitoringService
from nufi.services import Services


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_services(request: Request) -> Services:
    services = getattr(request.app.state, "services", None)
    if not isinstance(services, Services):
        # Only reachable when an app is driven without its lifespan, e.g. a bare ASGI transport.
        raise RuntimeError("NuFi services are not started; run the app with its lifespan")
    return services


_Service = TypeVar("_Service")


def service(pick: Callable[[Services], _Service]) -> Any:
    """A dependency answering the one service of the lifespan's that `pick` names, for `Annotated`."""

    def dependency(services: Annotated[Services, Depends(get_services)]) -> _Service:
        return pick(services)

    return Depends(dependency)


def get_catalog(request: Request) -> DeviceCatalog:
    return get_services(request).catalog


def get_monitoring(request: Request) -> MonitoringService:
    return get_services(request).monitoring


def get_snapshot_pages(request: Request) -> RenderedPages:
    pages: RenderedPages = request.app.state.snapshot_pages
    return pages
