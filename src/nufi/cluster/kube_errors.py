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
from collections.abc import Mapping

from nufi.cluster.gateway import KUBERNETES
from nufi.errors import (
    DEFAULT_RETRY_AFTER_SECONDS,
    Conflict,
    DependencyUnavailable,
    NotFound,
    NufiError,
    ValidationFailed,
)

TIMEOUT_SETTING = "NUFI_KUBE_TIMEOUT_SECONDS"
# Longer waits are passed on to NuFi's caller rather than slept through.
MAX_RETRY_AFTER_SECONDS = 300.0
_GRANT = "grant NuFi's service account the rights deploy/ describes"


class KubeRefused(Exception):
    """The API server refused a request with a 4xx status (not found, conflict, invalid...)."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"HTTP {status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message


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
    host: str, what: str, status: int, headers: Mapping[str, str], message: str, reason: str
) -> Exception:
    """The exception for an answer that is not 2xx: `what` names the operation in the message."""
    if status == 429:
        wait = retry_after(headers)
        return DependencyUnavailable(
            f"the Kubernetes API at {host} is throttling NuFi ({what}: HTTP 429, retry after "
            f"{wait:g} s): {message}",
            dependency=KUBERNETES,
            retry_after_seconds=math.ceil(wait),
        )
    if status == 410:
        return Gone(message)
    if 400 <= status < 500:
        return KubeRefused(status, reason, message)
    wait_seconds = DEFAULT_RETRY_AFTER_SECONDS
    if "Retry-After" in headers:
        wait_seconds = math.ceil(retry_after(headers))
    return DependencyUnavailable(
        f"the Kubernetes API at {host} answered {what} with HTTP {status}: {message}",
        dependency=KUBERNETES,
        retry_after_seconds=wait_seconds,
    )


def timed_out(host: str, what: str, timeout: float) -> DependencyUnavailable:
    return DependencyUnavailable(
        f"the Kubernetes API at {host} did not answer {what} within {timeout:g} s ({TIMEOUT_SETTING})",
        dependency=KUBERNETES,
    )


def failed(host: str, what: str, exc: Exception) -> DependencyUnavailable:
    return DependencyUnavailable(
        f"{what} to the Kubernetes API at {host} failed: {type(exc).__name__}: {exc}",
        dependency=KUBERNETES,
    )


def not_a_list(host: str, what: str) -> DependencyUnavailable:
    return DependencyUnavailable(
        f"the Kubernetes API at {host} answered {what} with something that is not a list",
        dependency=KUBERNETES,
    )


def refusal_error(exc: KubeRefused, *, field: str | None = None) -> NufiError:
    """The domain error a caller of NuFi can act on, for a refusal of what it asked NuFi to do."""
    if exc.status == 404:
        return NotFound(f"Kubernetes: {exc.message}")
    if exc.status == 409:
        return Conflict(f"Kubernetes: {exc.message}", field=field)
    if exc.status in (400, 422):
        return ValidationFailed(f"Kubernetes refused the object: {exc.message}", field=field)
    if exc.status in (401, 403):
        return DependencyUnavailable(
            f"Kubernetes refused NuFi's credentials (HTTP {exc.status}): {exc.message}; {_GRANT}",
            dependency=KUBERNETES,
        )
    return DependencyUnavailable(
        f"Kubernetes answered HTTP {exc.status}: {exc.message}", dependency=KUBERNETES
    )


def unavailable(method: str, path: str, exc: KubeRefused) -> DependencyUnavailable:
    """A refusal that is the cluster's fault, not the caller's: a read NuFi needed was refused."""
    detail = f"the Kubernetes API refused {method} {path} (HTTP {exc.status}): {exc.message}"
    if exc.status in (401, 403):
        detail += f"; {_GRANT}"
    return DependencyUnavailable(detail, dependency=KUBERNETES)


def list_refused(host: str, path: str, exc: KubeRefused) -> DependencyUnavailable:
    """A list NuFi needed was refused; for 401/403, the right to grant, where."""
    plural = path.rsplit("/", 1)[-1]
    detail = f"the Kubernetes API at {host} refused to list {plural} (HTTP {exc.status})"
    if exc.message:
        detail += f": {exc.message}"
    if exc.status in (401, 403):
        scope = "cluster-wide" if plural in ("nodes", "namespaces") else "in all namespaces"
        if "/namespaces/" in path:
            scope = f"in namespace {path.split('/namespaces/', 1)[1].split('/')[0]}"
        detail += f"; grant NuFi's service account `list` on `{plural}` {scope}"
    return DependencyUnavailable(detail, dependency=KUBERNETES)
