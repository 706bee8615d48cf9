"""Errors the Prometheus gateway raises, carrying Prometheus' own `errorType` and `error`.

Each is a message code with its params (`nufi.messages`); Prometheus' own `error` text is a param,
quoted inside NuFi's sentence, never the sentence itself. The positional sentence is still taken
from callers not yet converted to codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.errors import DependencyUnavailable, NufiError

PROMETHEUS = "prometheus"


class PrometheusQueryRejected(NufiError):
    """Prometheus could not parse or execute a query (`bad_data`, `execution`): the query is at fault,
    so retrying will not help; fix the expression (often a device type's metric expression)."""

    status = 422
    title = "Prometheus rejected the query"
    type = "prometheus-query-rejected"

    def __init__(
        self,
        *,
        code: str,
        query: str,
        error_type: str,
        error: str,
        params: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(code=code, params=params, query=query, error_type=error_type, error=error)
        self.query = query
        self.error_type = error_type
        self.error = error


class PrometheusUnavailable(DependencyUnavailable):
    """Prometheus could not be reached, timed out, or answered with something that is not its API."""

    type = "prometheus-unavailable"
    title = "Prometheus unavailable"

    def __init__(
        self,
        *,
        code: str,
        error_type: str | None = None,
        error: str | None = None,
        params: Mapping[str, object] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(
            code=code,
            params=params,
            dependency=PROMETHEUS,
            error_type=error_type,
            error=error,
            **extra,
        )
        self.error_type = error_type
        self.error = error


class PrometheusTimedOut(PrometheusUnavailable):
    """A query ran out of time: Prometheus gave up on it (its `timeout` parameter, errorType `timeout`)
    or did not answer before the HTTP client gave up."""


class PrometheusAnswerTooLarge(PrometheusUnavailable):
    """Prometheus' answer to a query was larger than NUFI_PROMETHEUS_MAX_RESPONSE_BYTES, so NuFi
    stopped reading it rather than hold it all in memory. Still a 503 `prometheus-unavailable`
    problem to a caller; `query` and `limit_bytes` say which query and what bound."""

    def __init__(self, *, query: str, limit_bytes: int, params: Mapping[str, object] | None = None) -> None:
        super().__init__(
            code="prometheus.answer_too_large", params=params, query=query, limit_bytes=limit_bytes
        )
        self.query = query
        self.limit_bytes = limit_bytes
