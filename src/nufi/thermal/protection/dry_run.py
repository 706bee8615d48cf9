"""What a proposed policy would have done over Prometheus history: every condition it protects from,
read at its worst over each step of the replay, fed through the controller's hysteresis and breaker
(`replay`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from nufi.auth import Principal
from nufi.devices.spec import DeviceType
from nufi.messages import Message
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.times import parse_instant
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.conditions import Condition, conditions_of, limits_for, unmet_conditions
from nufi.thermal.protection.replay import (
    BreakerHold,
    Episode,
    NodeReplay,
    Recording,
    common_hold,
    replay,
    replay_step,
    with_gaps,
)

DRY_RUN_DEFAULT_SECONDS = 86400.0
# Where an own condition's expression sits in a policy: the field its refusals name.
CUSTOM_EXPRESSION_FIELD = "custom.expression"
# Refuses (422 naming the field) an admin's expression beyond the admin query bounds.
BoundsCheck = Callable[[str, str], Awaitable[None]]


@dataclass(frozen=True)
class DryRun:
    device_type: str
    policy: ThermalPolicy
    start: float
    end: float
    step_seconds: float
    nodes: tuple[NodeReplay, ...]
    # Every would-be trip, by start.
    episodes: tuple[Episode, ...] = ()
    # The conditions replayed, and the stretches where the breaker kept nodes' traffic on.
    conditions: tuple[Condition, ...] = ("temperature",)
    breaker: tuple[BreakerHold, ...] = ()
    # Why conditions the policy switches on were not replayed (or can trip nothing): the type lacks
    # what they read.
    left_out: tuple[Message, ...] = ()


def recorded_expression(device_type: DeviceType, policy: ThermalPolicy, condition: Condition) -> str | None:
    """The expression whose worst value per device a condition is replayed from; None for temperature
    (the type's own, with its vendor's filter of blank readings).

    Health reads 1 for healthy and 0 for unhealthy (any other value is no reading), so its opposite is
    highest where the controller would see an unhealthy device."""
    if condition == "unhealthy":
        health = device_type.metrics.queries().get("health")
        return None if health is None else f"1 - ((({health}) == 0) or (({health}) == 1))"
    if condition == "custom":
        return policy.custom.expression
    return None


def replayed_conditions(device_type: DeviceType, policy: ThermalPolicy) -> list[Condition]:
    """The policy's conditions that history can replay: unhealthy only where the type maps health."""
    unmet = unmet_conditions(device_type, policy)
    return [c for c in conditions_of(policy) if c == "temperature" or c not in unmet]


async def dry_run(
    monitoring: MonitoringService,
    principal: Principal,
    device_type: DeviceType,
    policy: ThermalPolicy,
    *,
    start: str | None,
    end: str | None,
    bounds: BoundsCheck,
) -> DryRun:
    """Default range: the 24 hours before `end` (default now). One step for every condition: no longer
    than the scrape interval and dividing each condition's trip hold.

    An own condition's expression is the admin's PromQL, replayed over the whole range: it is held to
    the admin query bounds (`bounds`) before any history is read, as saving the policy holds it."""
    if start is None:
        until = time.time() if end is None else parse_instant(end, field="end")
        start = str(until - DRY_RUN_DEFAULT_SECONDS)
    conditions = replayed_conditions(device_type, policy)
    if "custom" in conditions and policy.custom.expression is not None:
        await bounds(policy.custom.expression, CUSTOM_EXPRESSION_FIELD)
    holds = common_hold(limits_for(policy, c).trip_hold_seconds for c in conditions)
    step = replay_step(holds, monitoring.settings.scrape_interval_seconds)
    histories = await asyncio.gather(
        *(
            monitoring.ranges.peak_history(
                principal,
                device_type.id,
                start=start,
                end=end,
                step_seconds=step,
                by=policy.scope,
                expression=recorded_expression(device_type, policy, condition),
            )
            for condition in conditions
        )
    )
    request = histories[0].request
    recordings: dict[Condition, Recording] = {
        condition: {
            (item.node, item.device): with_gaps(item.values, request.start, request.end, request.step_seconds)
            for item in history.series
        }
        for condition, history in zip(conditions, histories, strict=True)
    }
    replayed = replay(recordings, policy, end=request.end)
    return DryRun(
        device_type.id,
        policy,
        request.start,
        request.end,
        request.step_seconds,
        replayed.nodes,
        replayed.episodes,
        tuple(conditions),
        replayed.breaker,
        tuple(unmet_conditions(device_type, policy).values()),
    )
