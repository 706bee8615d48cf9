"""Domain errors.

Services raise these; the API face turns them into RFC 9457 problem details and the CLI into
messages. Nothing here knows about a web framework: `status` is the HTTP status the error
deserves, chosen where the error is defined so every face agrees on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

# How long a client should wait before retrying when a dependency failed without saying (seconds).
DEFAULT_RETRY_AFTER_SECONDS = 5


class NufiError(Exception):
    """Base of every error NuFi reports to a caller.

    `detail` is written for the person reading it: it names the offending value and says what to
    do. `extra` holds machine-readable fields (such as `field` or `resource_key`) that travel with
    the problem body. Fields whose value is None are dropped.
    """

    status: ClassVar[int] = 500
    title: ClassVar[str] = "Internal error"
    type: ClassVar[str] = "internal-error"

    def __init__(self, detail: str, **extra: object) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra: Mapping[str, object] = {key: value for key, value in extra.items() if value is not None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.detail!r}, extra={dict(self.extra)!r})"


class NotFound(NufiError):
    status = 404
    title = "Not found"
    type = "not-found"


class Conflict(NufiError):
    status = 409
    title = "Conflict"
    type = "conflict"


class ValidationFailed(NufiError):
    """Input that cannot be accepted; `field` names the offending input when there is one."""

    status = 422
    title = "Validation failed"
    type = "validation-failed"

    def __init__(self, detail: str, *, field: str | None = None, **extra: object) -> None:
        super().__init__(detail, field=field, **extra)
        self.field = field


class Unauthorized(NufiError):
    """The caller is not authenticated (missing, expired or invalid credentials)."""

    status = 401
    title = "Unauthorized"
    type = "unauthorized"


class Forbidden(NufiError):
    """The caller is authenticated but may not do this."""

    status = 403
    title = "Forbidden"
    type = "forbidden"


class DependencyUnavailable(NufiError):
    """A system NuFi relies on (Kubernetes, Prometheus, the database, the identity provider)
    cannot serve the request right now."""

    status = 503
    title = "Dependency unavailable"
    type = "dependency-unavailable"

    def __init__(
        self,
        detail: str,
        *,
        dependency: str,
        retry_after_seconds: int = DEFAULT_RETRY_AFTER_SECONDS,
        **extra: object,
    ) -> None:
        # Whole seconds: what an HTTP Retry-After header can carry.
        retry_after_seconds = max(1, int(retry_after_seconds))
        super().__init__(detail, dependency=dependency, retry_after_seconds=retry_after_seconds, **extra)
        self.dependency = dependency
        self.retry_after_seconds = retry_after_seconds
