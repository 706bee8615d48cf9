"""What an answer of the Kubernetes API means for NuFi: every translation of a status, a timeout or a
transport failure into an exception happens here, for requests, lists and watches alike.

A refusal (4xx) is `KubeRefused` with the server's status and message, for the caller to turn into
the domain error its own caller can act on (`refusal_error`) or, for a read NuFi needed, into
`DependencyUnavailable` (`unavailable`); 410 Gone is `Gone` (list again); a timeout, a transport
failure, a 5xx or throttling (429) that outlasts the time bound is `DependencyUnavailable` naming
Kubernetes, with the server's Retry-After when it gave one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal

from nufi.cluster.gateway import KUBERNETES
from nufi.cluster.quota_exceeded import Figures, quota_exceeded
from nufi.cluster.resources import format_quantity, parse_quantity
from nufi.errors import (
    DEFAULT_RETRY_AFTER_SECONDS,
    Conflict,
    DependencyUnavailable,
    NotFound,
    NufiError,
    ValidationFailed,
)
from nufi.messages import Message

TIMEOUT_SETTING = "NUFI_KUBE_TIMEOUT_SECONDS"
# Longer waits are passed on to NuFi's caller rather than slept through.
MAX_RETRY_AFTER_SECONDS = 300.0
# kube-apiserver's ResourceQuota admission, refusing an object with 403 Forbidden:
# `persistentvolumeclaims "x" is forbidden: exceeded quota: <name>, requested: <k>=<v>,..., used: ...,
# limited: ...` (the figures of each resource the quota has no room for).
_QUOTA_ADMISSION = re.compile(
    r"exceeded quota: (?P<quota>[^,\s]+), requested: (?P<requested>\S+), used: (?P<used>\S+), "
    r"limited: (?P<limited>\S+)"
)
_NAMESPACE = re.compile(r"/namespaces/(?P<namespace>[^/]+)/")


class KubeRefused(Exception):
    """The API server refused a request with a 4xx status (not found, conflict, invalid...)."""

    def __init__(self, status: int, reason: str, message: str, *, namespace: str | None = None) -> None:
        super().__init__(f"HTTP {status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message
        # The namespace the refused request was in, when its path names one.
        self.namespace = namespace


class Gone(KubeRefused):
    """HTTP 410: the resourceVersion or continue token asked for is too old; list again."""

    def __init__(self, message: str) -> None:
        super().__init__(410, "Gone", message)


def retry_after(headers: Mapping[str, str]) -> float:
    """The server's Retry-After in seconds (the API server sends whole seconds), 1 s when absent or
    unreadable, at most MAX_RETRY_AFTER_SECONDS."""
    try:
        return min(max(float(headers.get("Retry-After", "1")), 0.0), MAX_RETRY_AFTER_SECONDS)
    except ValueError:
        return 1.0


def answer_error(
    host: str,
    what: str,
    status: int,
    headers: Mapping[str, str],
    message: str,
    reason: str,
    *,
    path: str = "",
) -> Exception:
    """The exception for an answer that is not 2xx: `what` names the operation in the message, `path`
    is the request's (a refusal keeps the namespace it names)."""
    if status == 429:
        wait = retry_after(headers)
        return DependencyUnavailable(
            code="kube.throttled",
            params={"host": host, "what": what, "wait": wait, "message": message},
            dependency=KUBERNETES,
            retry_after_seconds=math.ceil(wait),
        )
    if status == 410:
        return Gone(message)
    if 400 <= status < 500:
        found = _NAMESPACE.search(path)
        return KubeRefused(status, reason, message, namespace=found["namespace"] if found else None)
    wait_seconds = DEFAULT_RETRY_AFTER_SECONDS
    if "Retry-After" in headers:
        wait_seconds = math.ceil(retry_after(headers))
    return DependencyUnavailable(
        code="kube.answered_status",
        params={"host": host, "what": what, "status": status, "message": message},
        dependency=KUBERNETES,
        retry_after_seconds=wait_seconds,
    )


def timed_out(host: str, what: str, timeout: float) -> DependencyUnavailable:
    return DependencyUnavailable(
        code="kube.timed_out", params={"host": host, "what": what, "timeout": timeout}, dependency=KUBERNETES
    )


def failed(host: str, what: str, exc: Exception) -> DependencyUnavailable:
    return DependencyUnavailable(
        code="kube.failed",
        params={"host": host, "what": what, "error_type": type(exc).__name__, "error": str(exc)},
        dependency=KUBERNETES,
    )


def not_a_list(host: str, what: str) -> DependencyUnavailable:
    return DependencyUnavailable(
        code="kube.not_a_list", params={"host": host, "what": what}, dependency=KUBERNETES
    )


def refusal_error(exc: KubeRefused, *, field: str | None = None) -> NufiError:
    """The domain error a caller of NuFi can act on, for a refusal of what it asked NuFi to do."""
    # Kubernetes' own words stay whole, as a param inside NuFi's sentence.
    said = {"status": exc.status, "message": exc.message}
    if exc.status == 404:
        return NotFound(code="kube.not_found", params=said)
    if exc.status == 409:
        return Conflict(code="kube.conflict", params=said, field=field)
    if exc.status in (400, 422):
        return ValidationFailed(code="kube.object_refused", params=said, field=field)
    quota = quota_refusal(exc, field=field)
    if quota is not None:
        return quota
    if exc.status in (401, 403):
        return DependencyUnavailable(code="kube.credentials_refused", params=said, dependency=KUBERNETES)
    return DependencyUnavailable(code="kube.refused_status", params=said, dependency=KUBERNETES)


def quota_refusal(exc: KubeRefused, *, field: str | None = None) -> ValidationFailed | None:
    """A ResourceQuota's admission refusal (403 Forbidden, "exceeded quota: ...") as the 422 NuFi's own
    up-front check gives (`quota.exceeded`): the caller asked for more than the project has room for,
    which is neither NuFi's credentials nor a fault of the cluster. None for any other refusal."""
    figures = _QUOTA_ADMISSION.search(exc.message) if exc.status == 403 else None
    if figures is None:
        return None
    requested, used, limited = (_figures(figures[part]) for part in ("requested", "used", "limited"))
    over = [
        name
        for name, hard in limited.items()
        if _amount(used.get(name)) + _amount(requested.get(name)) > _amount(hard)
    ] or list(limited)
    if not over:
        return None
    # An accelerator first: it is what a workload is most often refused for.
    resource = next((name for name in over if "/" in name), over[0])
    room = max(_amount(limited[resource]) - _amount(used.get(resource)), Decimal(0))
    return quota_exceeded(
        exc.namespace or "",
        Figures(
            figures["quota"],
            resource,
            limited[resource],
            used.get(resource, "0"),
            requested.get(resource, "0"),
            format_quantity(room, resource),
        ),
        field=field,
    )


def _figures(text: str) -> dict[str, str]:
    """`requests.storage=4Gi,pods=1` as Kubernetes wrote each figure."""
    pairs = (pair.partition("=") for pair in text.strip(",").split(","))
    return {name: value for name, _, value in pairs if name}


def _amount(text: str | None) -> Decimal:
    try:
        return parse_quantity(text) if text else Decimal(0)
    except ValueError:
        return Decimal(0)


def unavailable(method: str, path: str, exc: KubeRefused) -> DependencyUnavailable:
    """A refusal that is the cluster's fault, not the caller's: a read NuFi needed was refused."""
    said = {"method": method, "path": path, "status": exc.status, "message": exc.message}
    if exc.status in (401, 403):
        return DependencyUnavailable(code="kube.read_refused_rights", params=said, dependency=KUBERNETES)
    return DependencyUnavailable(code="kube.read_refused", params=said, dependency=KUBERNETES)


def list_refused(host: str, path: str, exc: KubeRefused) -> DependencyUnavailable:
    """A list NuFi needed was refused; for 401/403, the right to grant, where."""
    plural = path.rsplit("/", 1)[-1]
    said: dict[str, object] = {
        "host": host,
        "plural": plural,
        "status": exc.status,
        "said": Message("kube.said", {"message": exc.message})
        if exc.message
        else Message("kube.said_nothing"),
    }
    if exc.status in (401, 403):
        return DependencyUnavailable(
            code="kube.list_refused_rights",
            params={**said, "scope": _list_scope(path, plural)},
            dependency=KUBERNETES,
        )
    return DependencyUnavailable(code="kube.list_refused", params=said, dependency=KUBERNETES)


def _list_scope(path: str, plural: str) -> Message:
    """Where NuFi's service account needs the right to list `plural`."""
    if "/namespaces/" in path:
        return Message("kube.scope.namespace", {"namespace": path.split("/namespaces/", 1)[1].split("/")[0]})
    if plural in ("nodes", "namespaces"):
        return Message("kube.scope.cluster")
    return Message("kube.scope.all_namespaces")
