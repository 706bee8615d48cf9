"""Keeps the written rules equal to the catalog: at start, at once after every change this replica
makes (a type, its thresholds, its thermal policy), and every `interval_seconds` for changes made
through other replicas.

Where the rules go is decided on each pass (`auto`: PrometheusRule where the cluster serves it, else
the rules directory), so installing the Prometheus Operator later is followed without a restart. A
failure is kept as the status (shown in /readyz, where it does not make NuFi unready, and on the
Alerts page) and the next pass tries again; nothing else depends on it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from nufi.alerts.desired import DesiredRules
from nufi.alerts.targets import Converged, RuleTarget
from nufi.background.jobs import ALERT_RULES
from nufi.background.periodic import Periodic
from nufi.db.types import utc_now
from nufi.errors import NufiError
from nufi.health import DependencyStatus, elapsed_ms
from nufi.logging import get_logger
from nufi.messages import Message

NAME = "alert_rules"
_log = get_logger("nufi.alerts")

# Decides where the rules go on this pass; None when nowhere is configured (with the reason).
TargetChoice = Callable[[], Awaitable[tuple[RuleTarget | None, Message | None]]]


@dataclass(frozen=True)
class RulesStatus:
    """How the last pass went."""

    target: str = "none"
    configured: bool = False
    ok: bool = False
    location: str = ""
    groups: tuple[str, ...] = ()
    problem: Message | None = None
    last_success_at: float | None = None
    last_attempt_at: float | None = None


@dataclass
class RuleSync:
    desired: DesiredRules
    choose: TargetChoice
    interval_seconds: float = 30.0
    status: RulesStatus = field(default_factory=RulesStatus)
    # resource key -> type id of every enabled type at the last pass, for the capacity NuFi serves.
    resources: Mapping[str, str] = field(default_factory=dict)
    _wake: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)
    job: Periodic = field(init=False)

    def __post_init__(self) -> None:
        # A pass keeps its own failure as the status and never raises: the next one tries again.
        self.job = Periodic(ALERT_RULES, self.interval_seconds, self._sync, wake=self._wake)

    @property
    def name(self) -> str:
        return NAME

    @property
    def configured(self) -> bool:
        return self.status.configured

    def start(self) -> None:
        self.job.start()

    async def close(self) -> None:
        await self.job.close()

    def changed(self, _device_type_id: str = "") -> None:
        """Something the rules are made of changed: converge soon (a catalog change listener)."""
        self._wake.set()

    async def sync_now(self) -> Converged | None:
        """One pass, now; None when no target is configured or the pass failed (see `status`)."""
        async with self._lock:
            return await self._pass()

    async def _sync(self) -> None:
        await self.sync_now()

    async def _pass(self) -> Converged | None:
        started = time.time()
        target: RuleTarget | None = None
        try:
            target, why_not = await self.choose()
            if target is None:
                self.status = RulesStatus(problem=why_not, last_attempt_at=started)
                return None
            read_at = utc_now()
            wanted = await self.desired.wanted()
            self.resources = {t.resource_key: t.id for t in wanted.types if t.enabled}
            converged = await target.converge(wanted.groups)
            # The thresholds of a deleted type go with it, so a type registered again starts afresh.
            await self.desired.thresholds.remove_except({t.id for t in wanted.types}, written_before=read_at)
        except NufiError as exc:
            self._failed(target, Message(exc.code, exc.params), started)
            return None
        except (TimeoutError, OSError) as exc:
            problem = Message("alerts.sync_failed", {"reason": f"{type(exc).__name__}: {exc}"})
            self._failed(target, problem, started)
            return None
        if converged.changed:
            _log.info(
                "alert rules written",
                target=target.kind,
                location=converged.location,
                written=list(converged.written),
                removed=list(converged.removed),
                reloaded=converged.reloaded,
            )
        refused = {r.device_type for r in converged.refused}
        refusal = _refusal(converged)
        if refusal is not None and refusal != self.status.problem:
            # Once per new fault, not every pass.
            _log.warning("alert rules not written: Prometheus would refuse them", problem=refusal.text("en"))
        self.status = RulesStatus(
            target=target.kind,
            configured=True,
            ok=not refused,
            location=converged.location,
            groups=tuple(g.device_type for g in wanted.groups if g.device_type not in refused),
            problem=refusal,
            last_success_at=started if not refused else self.status.last_success_at,
            last_attempt_at=started,
        )
        return converged

    def _failed(self, target: RuleTarget | None, problem: Message, started: float) -> None:
        if self.status.ok or self.status.problem != problem:
            _log.warning("alert rules not written", problem=problem.text("en"))
        self.status = RulesStatus(
            target="none" if target is None else target.kind,
            configured=True,
            ok=False,
            location=self.status.location,
            groups=self.status.groups,
            problem=problem,
            last_success_at=self.status.last_success_at,
            last_attempt_at=started,
        )

    async def check(self) -> DependencyStatus:
        """The last pass, for /readyz: reported, never making NuFi unready (nothing else needs it)."""
        started = time.perf_counter()
        if self.status.last_attempt_at is None:
            await self.sync_now()
        status = self.status
        if status.ok:
            detail = f"{len(status.groups)} rule groups written ({status.target}: {status.location})"
        elif status.problem is not None:
            detail = status.problem.text("en")
        else:
            detail = "not written yet"
        return DependencyStatus(
            name=NAME,
            ok=status.ok,
            configured=status.configured,
            detail=detail,
            latency_ms=elapsed_ms(started),
            required=False,
        )


def _refusal(converged: Converged) -> Message | None:
    """What admins are told when some groups were not written because Prometheus would refuse them."""
    if not converged.refused:
        return None
    types = sorted({r.device_type for r in converged.refused})
    return Message("alerts.groups_refused", {"types": types, "reason": converged.refused[0].reason})
