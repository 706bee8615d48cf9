"""Which paths are a lab's, and who may open which lab, remembered for a few seconds.

`/labs/<project>/<name>/...` (a lab NuFi runs as a StatefulSet) and `/notebook/<namespace>/<name>/...`
(a Kubeflow Notebook) are the lab proxy's (nufi.api.labproxy.proxy); a path under either prefix that no lab
can have is a 404 problem, never the dashboard's page.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from starlette.responses import Response

from nufi.api.problems import ProblemKind, problem_response
from nufi.auth import Principal
from nufi.logging import get_logger
from nufi.workloads.labs.model import LabRoute

LOGIN_PATH = "/auth/login"  # the dashboard's sign-in (nufi.ui.signin.LOGIN_PATH)
ROUTE_TEMPLATE = "/labs/{project}/{name}/{path}"
LAB_PREFIXES = ("/labs/", "/notebook/")
_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_LAB_PATH = re.compile(rf"^/(labs|notebook)/({_LABEL})/({_LABEL})(/.*)?$", re.DOTALL)
# A page of JupyterLab loads a hundred files; each would cost reads of the namespace and the lab.
# Who may open which lab is remembered this long (so a member removed keeps access for at most this),
# per replica, for this many callers and labs.
ROUTE_CACHE_SECONDS = 5.0
ROUTE_CACHE_SIZE = 4096

_log = get_logger("nufi.api")


@dataclass(frozen=True)
class LabPath:
    family: Literal["labs", "notebook"]
    project: str
    name: str
    rest: str  # "" (no slash after the name) or "/..." (decoded)

    @property
    def prefix(self) -> str:
        return f"/{self.family}/{self.project}/{self.name}/"


def match_lab_path(path: str) -> LabPath | None:
    match = _LAB_PATH.match(path)
    if match is None:
        return None
    family: Literal["labs", "notebook"] = "labs" if match.group(1) == "labs" else "notebook"
    return LabPath(family, match.group(2), match.group(3), match.group(4) or "")


_RouteKey = tuple[str, str, bool, str, str]


class RouteCache:
    """Lab routes recently granted, by caller and lab; only grants are kept, never refusals."""

    def __init__(
        self,
        *,
        ttl_seconds: float = ROUTE_CACHE_SECONDS,
        size: int = ROUTE_CACHE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl_seconds
        self._size = size
        self._clock = clock
        self._entries: OrderedDict[_RouteKey, tuple[float, LabRoute]] = OrderedDict()

    @staticmethod
    def key(principal: Principal, project: str, name: str) -> _RouteKey:
        return (principal.subject, principal.username, principal.is_admin, project, name)

    def get(self, key: _RouteKey) -> LabRoute | None:
        found = self._entries.get(key)
        if found is None:
            return None
        if found[0] <= self._clock():
            del self._entries[key]
            return None
        return found[1]

    def put(self, key: _RouteKey, route: LabRoute) -> None:
        self._entries[key] = (self._clock() + self._ttl, route)
        self._entries.move_to_end(key)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)


UNREACHABLE = ProblemKind(502, "lab-unreachable", "lab.unreachable", "Bad gateway")


def no_such_lab_path(path: str) -> Response:
    return problem_response(status=404, type="not-found", code="lab.no_such_path", params={"path": path})


def lab_unreachable(route: LabRoute, exc: BaseException, request_id: str | None) -> Response:
    reason = str(exc) or type(exc).__name__
    _log.info("lab unreachable", namespace=route.namespace, lab=route.service, reason=reason)
    return UNREACHABLE.response(request_id, params={"reason": reason}, extra=_lab_of(route))


def lab_refused_socket(route: LabRoute, status: int, request_id: str | None) -> Response:
    """The lab itself refused a WebSocket handshake NuFi let through: its status when it is a
    refusal (4xx), else a bad gateway."""
    refused = 400 <= status < 500
    title = ("Forbidden" if status == 403 else "Refused") if refused else "Bad gateway"
    problem = ProblemKind(status if refused else 502, "lab-refused-websocket", "lab.refused_websocket", title)
    return problem.response(request_id, params={"lab_status": status}, extra=_lab_of(route))


def _lab_of(route: LabRoute) -> dict[str, object]:
    return {"project": route.namespace, "lab": route.service}
