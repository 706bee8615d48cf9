"""Domain errors: a message code with its params, and the HTTP status each face agrees on.

Services raise these; the API face turns them into RFC 9457 problem details and the dashboard
into what the person reads. Nothing here knows about a web framework: `status` is the HTTP status
the error deserves, chosen where the error is defined so every face agrees on it.

An error carries no sentence: it carries a message `code` from the catalogs of `nufi.messages` and
the `params` its sentence names, and each face renders it in its reader's language. `detail` is the
English rendering, for logs and for callers that ask for no language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from nufi.messages import Language, render, title_of

# How long a client should wait before retrying when a dependency failed without saying (seconds).
DEFAULT_RETRY_AFTER_SECONDS = 5


class NufiError(Exception):
    """Base of every error NuFi reports to a caller.

    `code` names the message in the catalogs (`docs/messages.md`); its sentence names the offending
    value and says what to do. `extra` holds machine-readable fields (such as `field` or
    `resource_key`) that travel with the problem body; `params` holds the values the sentence
    names that are not such fields. The sentence may use both. Values that are None are dropped.
    """

    status: ClassVar[int] = 500
    title: ClassVar[str] = "Internal error"
    type: ClassVar[str] = "internal-error"

    def __init_subclass__(
        cls, *, status: int | None = None, title: str | None = None, type: str | None = None, **kwargs: object
    ) -> None:
        # A kind of problem is named in its class statement: `class NotFound(NufiError, status=404, ...)`.
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if title is not None:
            cls.title = title
        if type is not None:
            cls.type = type

    def __init__(self, *, code: str, params: Mapping[str, object] | None = None, **extra: object) -> None:
        self.code = code
        self.extra: Mapping[str, object] = {key: value for key, value in extra.items() if value is not None}
        self.own_params: Mapping[str, object] = {
            key: value for key, value in (params or {}).items() if value is not None
        }
        super().__init__(code)

    @property
    def params(self) -> dict[str, object]:
        """Every value the sentence may name: the machine-readable fields and the message's own."""
        return {**self.extra, **self.own_params}

    def text(self, language: Language) -> str:
        try:
            return render(language, self.code, self.params)
        except (KeyError, ValueError, IndexError):
            # A test holds every code to the catalogs; should one slip through, the error still
            # says what it is rather than turning into another.
            return f"{self.code} {self.params}"

    def title_text(self, language: Language) -> str:
        return title_of(language, self.type, self.title)

    @property
    def detail(self) -> str:
        return self.text("en")

    def __str__(self) -> str:
        return self.detail

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, params={self.params!r})"


class NotFound(NufiError, status=404, title="Not found", type="not-found"):
    pass


class Conflict(NufiError, status=409, title="Conflict", type="conflict"):
    pass


class ValidationFailed(NufiError, status=422, title="Validation failed", type="validation-failed"):
    """Input that cannot be accepted; `field` names the offending input when there is one."""

    def __init__(
        self,
        *,
        code: str,
        field: str | None = None,
        params: Mapping[str, object] | None = None,
        **extra: object,
    ) -> None:
        self.field = field
        super().__init__(code=code, params=params, field=field, **extra)


class Unauthorized(NufiError, status=401, title="Unauthorized", type="unauthorized"):
    """The caller is not authenticated (missing, expired or invalid credentials)."""


class Forbidden(NufiError, status=403, title="Forbidden", type="forbidden"):
    """The caller is authenticated but may not do this."""


class DependencyUnavailable(
    NufiError, status=503, title="Dependency unavailable", type="dependency-unavailable"
):
    """A system NuFi relies on (Kubernetes, Prometheus, the database, the identity provider)
    cannot serve the request right now."""

    def __init__(
        self,
        *,
        code: str,
        dependency: str,
        retry_after_seconds: int = DEFAULT_RETRY_AFTER_SECONDS,
        params: Mapping[str, object] | None = None,
        **extra: object,
    ) -> None:
        # Whole seconds: what an HTTP Retry-After header can carry.
        retry_after_seconds = max(1, int(retry_after_seconds))
        self.dependency = dependency
        self.retry_after_seconds = retry_after_seconds
        super().__init__(
            code=code,
            params=params,
            dependency=dependency,
            retry_after_seconds=retry_after_seconds,
            **extra,
        )
