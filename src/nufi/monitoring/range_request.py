"""What a caller asks of a time range, checked, with the step chosen when none is given."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from nufi.errors import ValidationFailed
from nufi.monitoring.times import parse_duration, parse_instant

RangeMetric = Literal["utilization", "memory", "temperature", "power"]
Grouping = Literal["device", "node"]
RANGE_METRICS: tuple[RangeMetric, ...] = ("utilization", "memory", "temperature", "power")
GROUPINGS: tuple[Grouping, ...] = ("device", "node")

MAX_POINTS = 500
# Prometheus refuses ranges of more points per series than this.
PROMETHEUS_MAX_POINTS = 11_000
DEFAULT_SPAN_SECONDS = 3600.0
# No dashboard needs a coarser step, and Prometheus cannot represent one beyond ~292 years.
MAX_STEP_SECONDS = 366 * 86400.0
MAX_LABEL_VALUE_CHARS = 1024


@dataclass(frozen=True)
class RangeRequest:
    metric: RangeMetric
    start: float
    end: float
    step_seconds: float
    by: Grouping = "device"
    node: str | None = None
    device: str | None = None

    @property
    def points(self) -> int:
        """How many points each series has at most."""
        return points_between(self.start, self.end, self.step_seconds)


def points_between(start: float, end: float, step: float) -> int:
    return math.floor((end - start) / step) + 1


def choose_step(span_seconds: float, finest_seconds: float) -> float:
    """The finest step that keeps a span within MAX_POINTS points, but no finer than `finest_seconds`
    (the scrape interval: finer steps would only repeat samples), rounded up to whole seconds (whole
    milliseconds below one second)."""
    step = max(span_seconds / (MAX_POINTS - 1), finest_seconds)
    if step >= 1:
        return float(math.ceil(step))
    return math.ceil(step * 1000) / 1000


def parse_range_request(
    *,
    metric: str,
    start: str | None = None,
    end: str | None = None,
    step: str | None = None,
    by: str | None = None,
    node: str | None = None,
    device: str | None = None,
    now: float,
    finest_step_seconds: float,
) -> RangeRequest:
    """Check every parameter; ValidationFailed names the first one at fault.

    `end` defaults to `now` and `start` to an hour before `end`."""
    if metric not in RANGE_METRICS:
        raise ValidationFailed(f"metric `{metric}` is not one of {', '.join(RANGE_METRICS)}", field="metric")
    grouping = "device" if by is None else by
    if grouping not in GROUPINGS:
        raise ValidationFailed(f"by `{by}` is not one of {', '.join(GROUPINGS)}", field="by")
    end_at = now if end is None else parse_instant(end, field="end")
    start_at = end_at - DEFAULT_SPAN_SECONDS if start is None else parse_instant(start, field="start")
    if start_at >= end_at:
        raise ValidationFailed(
            f"start ({start_at:g}) must be before end ({end_at:g}); swap them or widen the range",
            field="start",
        )
    span = end_at - start_at
    if step is None:
        step_seconds = choose_step(span, finest_step_seconds)
    else:
        step_seconds = parse_duration(step, field="step")
        if step_seconds > MAX_STEP_SECONDS:
            raise ValidationFailed(
                f"step {step} is longer than the {MAX_STEP_SECONDS / 86400:g} days allowed; use a shorter "
                f"step, or leave step out to get at most {MAX_POINTS} points",
                field="step",
            )
        if points_between(start_at, end_at, step_seconds) > PROMETHEUS_MAX_POINTS:
            coarsest = math.ceil(span / (PROMETHEUS_MAX_POINTS - 1))
            raise ValidationFailed(
                f"step {step} gives more than {PROMETHEUS_MAX_POINTS} points per series over this range; "
                f"use a step of at least {coarsest} s, or leave step out to get at most {MAX_POINTS}",
                field="step",
            )
    return RangeRequest(
        metric=metric,
        start=start_at,
        end=end_at,
        step_seconds=step_seconds,
        by=grouping,
        node=_label_value(node, "node"),
        device=_label_value(device, "device"),
    )


def _label_value(value: str | None, field: str) -> str | None:
    if value is None:
        return None
    if not value:
        raise ValidationFailed(f"{field} is empty: give the {field} name, or leave {field} out", field=field)
    if len(value) > MAX_LABEL_VALUE_CHARS:
        raise ValidationFailed(
            f"{field} is {len(value)} characters long; at most {MAX_LABEL_VALUE_CHARS} are accepted",
            field=field,
        )
    return value
