"""The one HTTP client NuFi uses to talk to Prometheus."""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass, fields
from time import perf_counter
from typing import Any

import httpx

from nufi.config import Settings, settings_part
from nufi.health import DependencyStatus, elapsed_ms
from nufi.models.promql import MAX_EXPRESSION_CHARS
from nufi.prom.errors import (
    PROMETHEUS,
    PrometheusAnswerTooLarge,
    PrometheusTimedOut,
    PrometheusUnavailable,
)
from nufi.prom.failures import query_failure
from nufi.prom.results import QueryResult, parse_query_data
from nufi.prom.wire import Instant, auth_from, format_bytes, format_instant, format_timeout

# Longer queries go in a form body so no proxy trips over the URL length.
_MAX_GET_QUERY_CHARS = 2000
_NOT_CONFIGURED = (
    "not configured: set NUFI_PROMETHEUS_URL to the Prometheus base URL, e.g. http://prometheus:9090"
)

# Without a setting, Prometheus is asked to give up this fraction of the HTTP timeout, so it stops
# evaluating before NuFi stops waiting.
_QUERY_TIMEOUT_SHARE = 0.9
# How much longer than Prometheus' own timeout the HTTP client waits for a series count.
_COUNT_HTTP_MARGIN_SECONDS = 1.0
# The largest answer read from Prometheus without a setting (NUFI_PROMETHEUS_MAX_RESPONSE_BYTES).
_DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
# Answers larger than this are decoded in a worker thread (a 1,000-node type's answers are megabytes).
_DECODED_ASIDE_BYTES = 256 * 1024


@dataclass(frozen=True)
class AdminQueryLimits:
    """What an admin's expression (the wizard's check, a saved device type) may cost Prometheus:
    range selectors and subqueries over at most `max_range_seconds`, subquery steps of at least
    `min_subquery_step_seconds`, at most `max_points_per_series` points per series in a subquery
    evaluated over `longest_span_seconds` (the longest range NuFi asks of one expression: the
    dashboard's 24 h chart, the dry run's default day), and at most `max_series` series, counted first
    under `series_check_timeout_seconds`."""

    max_range_seconds: float = 3600.0
    min_subquery_step_seconds: float = 1.0
    max_series: int = 10_000
    series_check_timeout_seconds: float = 2.0
    max_points_per_series: int = 30_000
    longest_span_seconds: float = 86400.0

    @classmethod
    def from_settings(cls, settings: Settings) -> AdminQueryLimits:
        return cls(**settings_part(settings, "promql_", (field.name for field in fields(cls))))


class PrometheusGateway:
    """Readiness and PromQL queries against one Prometheus server (or an API-compatible one)."""

    name = PROMETHEUS

    def __init__(
        self,
        base_url: str | None,
        *,
        timeout_seconds: float = 10.0,
        query_timeout_seconds: float | None = None,
        admin_limits: AdminQueryLimits | None = None,
        max_response_bytes: int = _DEFAULT_MAX_RESPONSE_BYTES,
        auth: httpx.Auth | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/") if base_url else None
        self._timeout = timeout_seconds
        # Sent with every query as Prometheus' `timeout` parameter.
        self._query_timeout = query_timeout_seconds or timeout_seconds * _QUERY_TIMEOUT_SHARE
        self.admin_limits = admin_limits or AdminQueryLimits()
        if max_response_bytes < 1:
            raise ValueError(f"max_response_bytes must be at least 1, got {max_response_bytes}")
        # A query's answer is read into memory up to this many (decoded) bytes, and refused beyond.
        self._max_response_bytes = max_response_bytes
        self._client: httpx.AsyncClient | None = None
        if self._base_url is not None:
            self._client = httpx.AsyncClient(
                base_url=self._base_url,
                timeout=httpx.Timeout(timeout_seconds, connect=min(timeout_seconds, 5.0)),
                headers={"Accept": "application/json"},
                auth=auth,
                transport=transport,
            )

    @classmethod
    def from_settings(cls, settings: Settings) -> PrometheusGateway:
        return cls(
            settings.prometheus_url,
            timeout_seconds=settings.prometheus_timeout_seconds,
            query_timeout_seconds=settings.promql_query_timeout_seconds,
            admin_limits=AdminQueryLimits.from_settings(settings),
            max_response_bytes=settings.prometheus_max_response_bytes,
            auth=auth_from(settings),
        )

    @property
    def configured(self) -> bool:
        return self._client is not None

    @property
    def base_url(self) -> str | None:
        return self._base_url

    @property
    def max_response_bytes(self) -> int:
        """The largest answer to a query that is read; a larger one raises PrometheusAnswerTooLarge."""
        return self._max_response_bytes

    @property
    def query_timeout_seconds(self) -> float:
        """The `timeout` every query carries: Prometheus abandons an evaluation after this long."""
        return self._query_timeout

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def check(self) -> DependencyStatus:
        """Ask `/-/ready`: 200 once Prometheus has loaded its data, 503 while starting or stopping.

        An engine that serves the query API under a path prefix (vmselect's `/select/<tenant>/prometheus`,
        Mimir's `/prometheus`, VictoriaMetrics' `/prometheus`) has no `/-/ready` there: when that path is
        not served, the engine is ready if it answers a query."""
        if self._client is None:
            return DependencyStatus(name=self.name, ok=False, configured=False, detail=_NOT_CONFIGURED)
        started = perf_counter()
        try:
            response = await self._client.get("/-/ready")
        except httpx.HTTPError as exc:
            return self._status(False, self._unreachable(exc).detail, started)
        if response.status_code == 200:
            return self._status(True, f"Prometheus at {self._base_url} is ready", started)
        if response.status_code == 503:
            detail = f"Prometheus at {self._base_url} is not ready yet (HTTP 503 from /-/ready)"
            return self._status(False, detail, started)
        return await self._answers_queries(self._client, response.status_code, started)

    async def _answers_queries(
        self, client: httpx.AsyncClient, ready_status: int, started: float
    ) -> DependencyStatus:
        try:
            response = await client.get("/api/v1/query", params={"query": "vector(1)"})
            answered = response.status_code == 200 and response.json().get("status") == "success"
        except httpx.HTTPError as exc:
            return self._status(False, self._unreachable(exc).detail, started)
        except ValueError:  # not JSON: not a Prometheus API
            answered = False
        if answered:
            detail = (
                f"the Prometheus API at {self._base_url} answers queries "
                f"(its /-/ready is not served under this URL: HTTP {ready_status})"
            )
            return self._status(True, detail, started)
        detail = (
            f"Prometheus at {self._base_url} answered HTTP {ready_status} on /-/ready and HTTP "
            f"{response.status_code} on api/v1/query; check that NUFI_PROMETHEUS_URL is the URL under "
            "which the engine serves api/v1/query"
        )
        return self._status(False, detail, started)

    async def query(
        self, promql: str, time: Instant | None = None, *, timeout_seconds: float | None = None
    ) -> QueryResult:
        """Evaluate an instant query (`/api/v1/query`) at `time`, or now; Prometheus gives up after
        `timeout_seconds` (default: the gateway's query timeout)."""
        params: dict[str, str] = {"query": promql}
        if time is not None:
            params["time"] = format_instant(time)
        return await self._call("/api/v1/query", params, promql, timeout_seconds)

    async def count_series(self, expression: str, *, timeout_seconds: float) -> int:
        """How many series `expression` selects now, from `count((expression))` under a short timeout.

        Raises PrometheusTimedOut when counting takes longer than `timeout_seconds`, and
        PrometheusQueryRejected when Prometheus refuses the expression."""
        if len(expression) > MAX_EXPRESSION_CHARS:
            raise ValueError(f"expressions longer than {MAX_EXPRESSION_CHARS} characters are not counted")
        result = await self.query(f"count(({expression}))", timeout_seconds=timeout_seconds)
        if result.result_type != "vector" or not result.samples:
            return 0
        value = result.samples[0].value
        return int(value) if math.isfinite(value) else 0

    async def query_range(
        self, promql: str, start: Instant, end: Instant, step_seconds: float
    ) -> QueryResult:
        """Evaluate a range query (`/api/v1/query_range`); `end` is inclusive."""
        if not math.isfinite(step_seconds) or step_seconds <= 0:
            raise ValueError(f"step_seconds must be a positive number, got {step_seconds}")
        params = {
            "query": promql,
            "start": format_instant(start),
            "end": format_instant(end),
            "step": repr(float(step_seconds)),
        }
        return await self._call("/api/v1/query_range", params, promql, None)

    async def read(self, path: str) -> Any:
        """The `data` of a successful answer from one of Prometheus' read endpoints that take no
        query, such as `/api/v1/alerts` and `/api/v1/rules`."""
        client = self._require_client()
        try:
            response = await client.get(path)
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        envelope = self._envelope(response.content, response.status_code, path)
        if envelope.get("status") != "success":
            raise PrometheusUnavailable(
                code="prometheus.read_failed",
                params={"url": f"{self._base_url}{path}", "status": response.status_code},
                error=str(envelope.get("error") or ""),
            )
        return envelope.get("data")

    async def reload(self) -> None:
        """Ask Prometheus to load its configuration and rule files again (`POST /-/reload`), which it
        serves only when started with `--web.enable-lifecycle`."""
        client = self._require_client()
        try:
            response = await client.post("/-/reload")
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        if response.status_code == 204:
            # Prometheus answers 200. 204 is VictoriaMetrics, which reloads its scrape configuration
            # but evaluates no alerting rules: saying "did not reload" would send the reader astray.
            raise PrometheusUnavailable(
                code="prometheus.reload_without_rules", params={"url": f"{self._base_url}/-/reload"}
            )
        if response.status_code != 200:
            raise PrometheusUnavailable(
                code="prometheus.reload_failed",
                params={
                    "url": f"{self._base_url}/-/reload",
                    "status": response.status_code,
                    "reason": response.text.strip()[:300],
                },
            )

    async def _call(
        self, path: str, params: dict[str, str], promql: str, timeout_seconds: float | None
    ) -> QueryResult:
        client = self._require_client()
        evaluation = self._query_timeout if timeout_seconds is None else timeout_seconds
        params = {**params, "timeout": format_timeout(evaluation)}
        # A shorter evaluation than usual is waited for only a little longer than Prometheus takes.
        waited = min(self._timeout, evaluation + _COUNT_HTTP_MARGIN_SECONDS)
        request_timeout = httpx.Timeout(waited, connect=min(waited, 5.0))
        try:
            if len(promql) > _MAX_GET_QUERY_CHARS:
                request = client.build_request("POST", path, data=params, timeout=request_timeout)
            else:
                request = client.build_request("GET", path, params=params, timeout=request_timeout)
            # Streamed, so an answer larger than the bound is never held whole in memory.
            response = await client.send(request, stream=True)
            try:
                body = await self._read_bounded(response, promql)
            finally:
                await response.aclose()
        except httpx.TimeoutException as exc:
            raise PrometheusTimedOut(
                code="prometheus.timed_out", params={"url": self._base_url, "seconds": waited}
            ) from exc
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        if len(body) > _DECODED_ASIDE_BYTES:
            # Decoding a large answer takes tens of milliseconds: in a thread, the event loop goes on
            # answering requests meanwhile instead of stalling all of them.
            envelope, result = await asyncio.to_thread(self._decoded, body, response.status_code, path)
        else:
            envelope, result = self._decoded(body, response.status_code, path)
        if result is not None:
            return result
        raise query_failure(envelope, response.status_code, promql=promql, url=self._base_url)

    async def _read_bounded(self, response: httpx.Response, promql: str) -> bytes:
        """The (decoded) body of `response`, or PrometheusAnswerTooLarge as soon as it is known to
        exceed the bound: at once from a Content-Length, else once the bytes read pass it."""
        limit = self._max_response_bytes
        declared = response.headers.get("Content-Length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            raise self._too_large(promql)
        chunks: list[bytes] = []
        received = 0
        async for chunk in response.aiter_bytes():
            received += len(chunk)
            if received > limit:
                raise self._too_large(promql)
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_large(self, promql: str) -> PrometheusAnswerTooLarge:
        limit = self._max_response_bytes
        return PrometheusAnswerTooLarge(
            query=promql, limit_bytes=limit, params={"url": self._base_url, "limit": format_bytes(limit)}
        )

    def _decoded(
        self, content: bytes, status_code: int, path: str
    ) -> tuple[dict[str, Any], QueryResult | None]:
        """The envelope of an answer, and its result when it is a success."""
        envelope = self._envelope(content, status_code, path)
        if envelope.get("status") != "success":
            return envelope, None
        warnings = envelope.get("warnings") or []
        result = parse_query_data(envelope.get("data"), warnings if isinstance(warnings, list) else [])
        return envelope, result

    def _envelope(self, content: bytes, status_code: int, path: str) -> dict[str, Any]:
        try:
            body = json.loads(content)
        except ValueError:
            body = None
        if not isinstance(body, dict) or body.get("status") not in ("success", "error"):
            raise PrometheusUnavailable(
                code="prometheus.not_its_api",
                params={"url": f"{self._base_url}{path}", "status": status_code},
            )
        return body

    def _require_client(self) -> httpx.AsyncClient:
        if self._client is None:
            raise PrometheusUnavailable(code="prometheus.not_configured")
        return self._client

    def _unreachable(self, exc: httpx.HTTPError) -> PrometheusUnavailable:
        url = self._base_url
        if isinstance(exc, httpx.TimeoutException):
            return PrometheusTimedOut(
                code="prometheus.timed_out", params={"url": url, "seconds": self._timeout}
            )
        if isinstance(exc, httpx.ConnectError):
            reason = str(exc) or type(exc).__name__
            return PrometheusUnavailable(
                code="prometheus.connect_failed", params={"url": url, "reason": reason}
            )
        return PrometheusUnavailable(
            code="prometheus.request_failed", params={"url": url, "reason": f"{type(exc).__name__}: {exc}"}
        )

    def _status(self, ok: bool, detail: str, started: float) -> DependencyStatus:
        return DependencyStatus(
            name=self.name, ok=ok, configured=True, detail=detail, latency_ms=elapsed_ms(started)
        )
