"""What an error answer to a query means, whichever engine wrote it.

Prometheus says it in `errorType` (`bad_data`, `execution`: the query is at fault; `timeout`,
`unavailable`, ...: the server is). VictoriaMetrics and other engines that speak Prometheus' API put the
HTTP status there instead (`"422"`), so the status decides too: a 400 or 422 answer is always the query's
fault, whatever `errorType` says. Anything else is the server's trouble: retrying may help, fixing the
expression will not.
"""

from __future__ import annotations

from collections.abc import Mapping

from nufi.prom.errors import PrometheusQueryRejected, PrometheusTimedOut, PrometheusUnavailable

# Prometheus' error types that mean "the query is wrong", as opposed to "Prometheus is in trouble".
_QUERY_FAULTS = frozenset({"bad_data", "execution"})
# 400: a parameter or the expression could not be parsed; 422: it could not be executed (Prometheus'
# API contract, followed by VictoriaMetrics, Thanos and Mimir).
_QUERY_FAULT_STATUSES = frozenset({400, 422})
_TIMEOUTS = frozenset({"timeout"})


def query_failure(
    envelope: Mapping[str, object], status_code: int, *, promql: str, url: str | None
) -> PrometheusQueryRejected | PrometheusUnavailable:
    """The error an error `envelope` answered to `promql` with HTTP `status_code` stands for."""
    error_type = str(envelope.get("errorType") or "unknown")
    error = str(envelope.get("error") or f"HTTP {status_code}")
    if error_type in _QUERY_FAULTS or status_code in _QUERY_FAULT_STATUSES:
        return PrometheusQueryRejected(
            code="prometheus.query_rejected", query=promql, error_type=error_type, error=error
        )
    said = {"url": url, "query": promql}
    if error_type in _TIMEOUTS:
        return PrometheusTimedOut(
            code="prometheus.query_failed", params=said, error_type=error_type, error=error
        )
    return PrometheusUnavailable(
        code="prometheus.query_failed", params=said, error_type=error_type, error=error
    )
