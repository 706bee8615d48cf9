"""Readiness: can this replica serve at all?

Every dependency is listed with what its check found. Only a *required* one that is configured and
failing makes NuFi unready: one without which nothing can be served (the database). A dependency that
only some pages and routes need (Kubernetes, the metrics engine, alert rules) is *reported*: when it
fails, those pages and routes say so themselves (a 503 naming it), and the rest keeps serving. An
orchestrator takes an unready replica out of its Service, so a shared dependency that fails must not
make every replica unready and take the whole dashboard and API down with it. A dependency that is not
configured (no kubeconfig, no Prometheus URL, ...) is listed and never makes NuFi unready.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Protocol

import structlog
from pydantic import BaseModel, ConfigDict, Field

_log = structlog.stdlib.get_logger("nufi.health")


class DependencyStatus(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Dependency name, e.g. kubernetes, prometheus, database")
    ok: bool = Field(description="True when the dependency answered as expected")
    configured: bool = Field(description="False when NuFi was not configured to use this dependency")
    detail: str = Field(description="What was checked and what came back, or how to configure it")
    latency_ms: float | None = Field(default=None, description="Time the check took, when it ran")
    required: bool = Field(
        default=True,
        description="False for a dependency whose failure is reported but leaves NuFi ready "
        "(Kubernetes, the metrics engine, alert rules): the pages and routes that need it answer "
        "that it is unavailable, and the rest goes on serving",
    )


class DependencyCheck(Protocol):
    """Anything readiness can probe: gateways implement this."""

    @property
    def name(self) -> str: ...

    @property
    def configured(self) -> bool: ...

    async def check(self) -> DependencyStatus: ...


class ReadinessReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    ready: bool
    dependencies: list[DependencyStatus]

    @property
    def failing(self) -> list[DependencyStatus]:
        return [d for d in self.dependencies if d.configured and d.required and not d.ok]


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a `time.perf_counter()` value), rounded for humans."""
    return round((time.perf_counter() - started) * 1000, 2)


class Readiness:
    """Runs every registered check concurrently, each bounded by its own timeout."""

    def __init__(
        self,
        checks: Iterable[DependencyCheck] = (),
        *,
        reported: Iterable[DependencyCheck] = (),
        timeout_seconds: float = 2.0,
    ) -> None:
        """`checks` are required (failing, NuFi is unready); `reported` ones are listed only."""
        if timeout_seconds <= 0:
            raise ValueError(f"timeout_seconds must be positive, got {timeout_seconds}")
        self._timeout = timeout_seconds
        self._checks: dict[str, DependencyCheck] = {}
        self._reported: set[str] = set()
        self._last_ready: bool | None = None
        for check in checks:
            self.register(check)
        for check in reported:
            self.register(check, required=False)

    @property
    def names(self) -> list[str]:
        return list(self._checks)

    def register(self, check: DependencyCheck, *, required: bool = True) -> None:
        if check.name in self._checks:
            raise ValueError(f"a readiness check named {check.name!r} is already registered")
        self._checks[check.name] = check
        if not required:
            self._reported.add(check.name)

    async def run(self) -> ReadinessReport:
        statuses = await asyncio.gather(*(self._run_one(c) for c in self._checks.values()))
        report = ReadinessReport(
            ready=all(s.ok for s in statuses if s.configured and s.required), dependencies=list(statuses)
        )
        self._log_change(report)
        return report

    def _log_change(self, report: ReadinessReport) -> None:
        # Probes poll every few seconds: log transitions, not every answer.
        if report.ready == self._last_ready:
            return
        self._last_ready = report.ready
        if report.ready:
            _log.info("ready", dependencies={d.name: d.detail for d in report.dependencies})
        else:
            _log.warning("not ready", failing={d.name: d.detail for d in report.failing})

    async def _run_one(self, check: DependencyCheck) -> DependencyStatus:
        status = await self._status_of(check)
        if check.name in self._reported and status.required:
            # Also when the check timed out or raised: a reported dependency never makes NuFi unready.
            status = status.model_copy(update={"required": False})
        return status

    async def _status_of(self, check: DependencyCheck) -> DependencyStatus:
        started = time.perf_counter()
        try:
            status = await asyncio.wait_for(check.check(), timeout=self._timeout)
        except TimeoutError:
            return _failed(check, f"{check.name} did not answer within {self._timeout:g} s", started)
        except Exception as exc:
            # A check is meant to report failure, not raise it; still, one broken check must not
            # hide the others or turn /readyz into a 500.
            return _failed(check, f"{check.name} check failed: {type(exc).__name__}: {exc}", started)
        if status.latency_ms is None and status.configured:
            status = status.model_copy(update={"latency_ms": elapsed_ms(started)})
        return status


def _failed(check: DependencyCheck, detail: str, started: float) -> DependencyStatus:
    """What a check that timed out or raised is reported as."""
    return DependencyStatus(
        name=check.name, ok=False, configured=check.configured, detail=detail, latency_ms=elapsed_ms(started)
    )
