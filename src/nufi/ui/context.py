"""What every dashboard page needs: the process's services and the signed-in principal.

NiceGUI keeps one app per process, so the dashboard has one set of services per process too: the
server attaches them when it starts (`attach`) and detaches them when it stops. The principal comes
from the request's dashboard session (`nufi.ui.signin`); tests of the pages put a resolver of their
own in its place, the sign-in flow being tested on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request

from nufi.auth import Principal
from nufi.services import Services
from nufi.ui.signin import signed_in

PrincipalResolver = Callable[[Request], Awaitable[Principal | None]]


@dataclass
class _Attached:
    services: Services | None = None
    resolver: PrincipalResolver | None = None


_attached = _Attached()


def attach(services: Services | None, resolver: PrincipalResolver | None = None) -> None:
    _attached.services = services
    if resolver is not None or services is None:
        _attached.resolver = resolver


def is_attached() -> bool:
    return _attached.services is not None


def services() -> Services:
    if _attached.services is None:
        raise RuntimeError("the dashboard is not attached to a running NuFi server")
    return _attached.services


async def principal(request: Request) -> Principal | None:
    if _attached.resolver is not None:
        return await _attached.resolver(request)
    return await signed_in(request)
