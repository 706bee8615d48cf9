"""What a caller asks of a time range, checked, with the step chosen when none is given.

Bounds, so that no range can stall Prometheus or NuFi: a range spans at most `max_range_seconds`
(`NUFI_MONITORING_MAX_RANGE_SECONDS`), each series has at most `PROMETHEUS_MAX_POINTS` points
(Prometheus' own limit), and a step lies between `MIN_STEP_SECONDS` and `MAX_STEP_SECONDS`. Each
refusal names the parameter and carries the nearest value allowed as `limit`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from nufi.errors import ValidationFailed
from nufi.messages import Message
from nufi.monitoring.times import parse_duration, parse_instant, rfc3339

RangeMetric = Literal["utilization", "memory", "temperature", "power"]
Grouping = Literal["device", "node"]
# Which series a limited range keeps: the highest at the range's end, or over the whole range.
Top = Literal["latest", "peak"]
RANGE_METRICS: tuple[RangeMetric, ...] = ("utilization", "memory", "temperature", "power")
GROUPINGS: tuple[Grouping, ...] = ("device", "node")
TOPS: tuple[Top, ...] = ("latest", "peak")

MAX_POINTS = 500
# Prometheus refuses ranges of more points per series than this.
PROMETHEUS_MAX_POINTS = 11_000
DEFAULT_SPAN_SECONDS = 3600.0
# No dashboard needs a coarser step, and Prometheus cannot represent one beyond ~292 years.
MAX_STEP_SECONDS = 366 * 86400.0
# Prometheus evaluates in whole milliseconds: a finer step would be a step of 0.
MIN_STEP_SECONDS = 0.001
DEFAULT_MAX_RANGE_SECONDS = 31 * 86400.0
MAX_LABEL_VALUE_CHARS = 1024
# Fewer than two points per series draws no line.
MIN_POINTS = 2
# More lines than this are no chart: a caller wanting every series omits the limit.
MAX_SERIES_LIMIT = 1000


@dataclass(frozen=True)
class RangeQuery:
    """A time range as a caller asks for it, each parameter as given; `parse_range_request` checks it."""

    metric: str
    start: str | None = None
    end: str | None = None
    step: str | None = None
    by: str | None = None
    node: str | None = None
    device: str | None = None
    # A cap on the default step's points per series (what a chart can draw).
    points: int | None = None
    series: int | None = None
    top: str | None = None


@dataclass(frozen=True)
class RangeRequest:
    metric: RangeMetric
    start: float
    end: float
    step_seconds: float
    by: Grouping = "device"
    node: str | None = None
    device: str | None = None
    # At most this many series, the highest by `top`; None: every series.
    series: int | None = None
    top: Top = "latest"

    @property
    def points(self) -> int:
        """How many points each series has at most."""
        return points_between(self.start, self.end, self.step_seconds)


def points_between(start: float, end: float, step: float) -> int:
    return math.floor((end - start) / step) + 1


def too_many_points(span_seconds: float, step_seconds: float) -> bool:
    """Whether a span at this step has more points per series than Prometheus answers: floor(span /
    step) + 1 > PROMETHEUS_MAX_POINTS, asked without `floor` (an absurdly fine step overflows it)."""
    return span_seconds / step_seconds >= PROMETHEUS_MAX_POINTS


def finest_step(span_seconds: float) -> float:
    """The finest step, in whole seconds (whole milliseconds below a second), that keeps a span
    within PROMETHEUS_MAX_POINTS points per series."""
    step = max(_round_up(span_seconds / PROMETHEUS_MAX_POINTS), MIN_STEP_SECONDS)
    while too_many_points(span_seconds, step):
        step = step + 1 if step >= 1 else _round_up(step + MIN_STEP_SECONDS)
    return step


def _round_up(seconds: float) -> float:
    if seconds >= 1:
        return float(math.ceil(seconds))
    return math.ceil(seconds * 1000) / 1000


def choose_step(span_seconds: float, finest_seconds: float, max_points: int = MAX_POINTS) -> float:
    """The finest step that keeps a span within `max_points` points, but no finer than `finest_seconds`
    (the scrape interval: finer steps would only repeat samples), rounded up to whole seconds (whole
    milliseconds below one second)."""
    return _round_up(max(span_seconds / (max_points - 1), finest_seconds))


def parse_range_request(
    query: RangeQuery,
    *,
    now: float,
    finest_step_seconds: float,
    max_range_seconds: float = DEFAULT_MAX_RANGE_SECONDS,
) -> RangeRequest:
    """Check every parameter; ValidationFailed names the first one at fault.

    `end` defaults to `now` and `start` to an hour before `end`. A bound refused carries the nearest
    value allowed as `limit`: the earliest `start` (Unix seconds), the finest or coarsest `step`
    (seconds). `points` (what a chart can draw) lowers the default step's MAX_POINTS; a step given
    wins over it. `series` keeps only the highest series by `top` (default `latest`)."""
    if query.metric not in RANGE_METRICS:
        raise ValidationFailed(
            code="monitoring.metric_unknown",
            field="metric",
            params={"value": query.metric, "allowed": ", ".join(RANGE_METRICS)},
        )
    grouping = "device" if query.by is None else query.by
    if grouping not in GROUPINGS:
        raise ValidationFailed(
            code="monitoring.grouping_unknown",
            field="by",
            params={"value": query.by, "allowed": ", ".join(GROUPINGS)},
        )
    most_points = _within("points", query.points, MIN_POINTS, MAX_POINTS)
    limit = _within("series", query.series, 1, MAX_SERIES_LIMIT)
    if query.top is not None and query.top not in TOPS:
        raise ValidationFailed(
            code="monitoring.top_unknown",
            field="top",
            params={"value": query.top, "allowed": ", ".join(TOPS)},
        )
    start_at, end_at = _checked_span(query.start, query.end, now=now, max_range_seconds=max_range_seconds)
    span = end_at - start_at
    if query.step is None:
        step_seconds = choose_step(
            span, finest_step_seconds, MAX_POINTS if most_points is None else most_points
        )
    else:
        step_seconds = _checked_step(query.step, span)
    return RangeRequest(
        metric=query.metric,
        start=start_at,
        end=end_at,
        step_seconds=step_seconds,
        by=grouping,
        node=_label_value(query.node, "node"),
        device=_label_value(query.device, "device"),
        series=limit,
        top="peak" if query.top == "peak" else "latest",
    )


def _within(field: str, value: int | None, least: int, most: int) -> int | None:
    if value is None or least <= value <= most:
        return value
    raise ValidationFailed(
        code="monitoring.count_out_of_range",
        field=field,
        params={"field": field, "value": value, "min": least, "max": most},
        limit=least if value < least else most,
    )


def _checked_span(
    start: str | None, end: str | None, *, now: float, max_range_seconds: float
) -> tuple[float, float]:
    """`start` and `end` as Unix seconds, in order and no further apart than `max_range_seconds`."""
    end_at = now if end is None else parse_instant(end, field="end")
    start_at = end_at - DEFAULT_SPAN_SECONDS if start is None else parse_instant(start, field="start")
    if start_at >= end_at:
        raise ValidationFailed(
            code="monitoring.range_reversed",
            field="start",
            params={"start": _number(start_at), "end": _number(end_at)},
        )
    span = end_at - start_at
    if span > max_range_seconds:
        earliest = earliest_start(end_at, max_range_seconds)
        raise ValidationFailed(
            code="monitoring.range_too_long",
            params={
                "span": _span(span),
                "max_span": _span(max_range_seconds),
                "earliest": rfc3339(earliest),
                "earliest_seconds": _number(earliest),
            },
            field="start",
            limit=earliest,
            max_range_seconds=max_range_seconds,
        )
    return start_at, end_at


def earliest_start(end: float, max_range_seconds: float) -> float:
    """The earliest start a range ending at `end` may have (exact in floating point)."""
    earliest = end - max_range_seconds
    while end - earliest > max_range_seconds:
        earliest = math.nextafter(earliest, math.inf)
    # Rounding may let an earlier start still span no more than the maximum: that one is the earliest.
    while end - (earlier := math.nextafter(earliest, -math.inf)) <= max_range_seconds:
        earliest = earlier
    return earliest


def _checked_step(step: str, span: float) -> float:
    step_seconds = parse_duration(step, field="step")
    if step_seconds > MAX_STEP_SECONDS:
        raise ValidationFailed(
            code="monitoring.step_too_long",
            params={
                "step": step,
                "max_days": f"{MAX_STEP_SECONDS / 86400:g}",
                "max_seconds": _number(MAX_STEP_SECONDS),
                "max_points": MAX_POINTS,
            },
            field="step",
            limit=MAX_STEP_SECONDS,
        )
    if step_seconds < MIN_STEP_SECONDS or too_many_points(span, step_seconds):
        finest = finest_step(span)
        said = {"step": step, "finest": _number(finest), "max_points": MAX_POINTS}
        if step_seconds < MIN_STEP_SECONDS:
            raise ValidationFailed(
                code="monitoring.step_too_fine",
                params={**said, "min_ms": f"{MIN_STEP_SECONDS * 1000:g}"},
                field="step",
                limit=finest,
            )
        raise ValidationFailed(
            code="monitoring.step_too_many_points",
            params={**said, "prometheus_max": PROMETHEUS_MAX_POINTS, "span": _span(span)},
            field="step",
            limit=finest,
        )
    return step_seconds


def _number(seconds: float) -> str:
    """Seconds as a person reads them: no exponent, at most three decimals."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


def _span(seconds: float) -> Message:
    """A length of time in the largest unit it reaches, worded in the reader's language."""
    if seconds >= 86400:
        return Message("monitoring.span.days", {"count": round(seconds / 86400, 3)})
    if seconds >= 3600:
        return Message("monitoring.span.hours", {"count": round(seconds / 3600, 3)})
    return Message("monitoring.span.seconds", {"count": round(seconds, 3)})


def _label_value(value: str | None, field: str) -> str | None:
    if value is None:
        return None
    if not value:
        raise ValidationFailed(code="monitoring.label_empty", field=field)
    if len(value) > MAX_LABEL_VALUE_CHARS:
        raise ValidationFailed(
            code="monitoring.label_too_long",
            field=field,
            params={"length": len(value), "max": MAX_LABEL_VALUE_CHARS},
        )
    return value
