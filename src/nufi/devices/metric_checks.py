"""Checking a device type's metric expressions against the real Prometheus, one query each.

An admin's expressions are also held to what they may cost Prometheus before any of them runs
(`enforce_query_bounds`): ranges and subquery steps from the syntax tree, then the series count from
a cheap `count((expr))` under a short timeout. Parsing happens in a worker thread, never on the event
loop.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from nufi.devices.fetcher import PrometheusQueries
from nufi.devices.plausibility import (
    MAX_TEMPERATURE_CELSIUS,
    MAX_UTILIZATION_PERCENT,
    MIN_TEMPERATURE_CELSIUS,
    MIN_UTILIZATION_PERCENT,
    implausible,
)
from nufi.devices.readings import ValueFilter, finite_value
from nufi.devices.spec import LabelsDraft, MetricKey, MetricsDraft
from nufi.errors import ValidationFailed
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, Sample
from nufi.prom.errors import PrometheusTimedOut
from nufi.prom.gateway import AdminQueryLimits
from nufi.prom.promql import ExpressionError, instant_vector_problem, label_name_problem, range_problem

SAMPLE_SIZE = 3
CONVERTED_LABEL = "nufi_converted"
"""A label an expression sets on series whose value it converted, naming the conversion `from→to`."""
_SHOWN_LABELS = 12
# Where each quantity's expression sits in a device type document.
FIELD_OF: dict[MetricKey, str] = {
    "utilization": "metrics.utilization",
    "memory_used": "metrics.memory.used",
    "memory_total": "metrics.memory.total",
    "memory_free": "metrics.memory.free",
    "temperature": "metrics.temperature",
    "power": "metrics.power",
    "health": "metrics.health",
}


class SeriesCounter(Protocol):
    """The part of the Prometheus gateway that counts an expression's series cheaply."""

    async def count_series(self, expression: str, *, timeout_seconds: float) -> int: ...


class SamplePoint(BaseModel):
    node: str | None
    device: str | None
    # JSON has no NaN or infinity; such values, and those the fetcher refuses, are reported as null
    # (and warned about).
    value: float | None


class MetricCheck(BaseModel):
    """The verdict on one expression: `ok` is false exactly when `error` is set."""

    ok: bool
    query: str
    series: int = 0
    sample: list[SamplePoint] = Field(default_factory=list)
    missing_labels: list[str] = Field(default_factory=list)
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)


class MetricsCheck(BaseModel):
    """`ok` when no label name and no expression has an error; warnings do not count."""

    ok: bool
    results: dict[str, MetricCheck]
    label_errors: dict[str, str] = Field(default_factory=dict)


async def enforce_query_bounds(
    metrics: MetricsDraft,
    prometheus: SeriesCounter,
    limits: AdminQueryLimits,
    *,
    raise_unavailable: bool = False,
) -> None:
    """Refuse (ValidationFailed, 422, naming the field and the bound) an expression that would cost
    Prometheus too much: a range or subquery wider than the limit, a subquery step finer than it, more
    series than the limit, or a series count that does not finish within its timeout.

    Expressions that do not parse, or cannot give a vector, are left to `check_metrics` to report.
    When Prometheus cannot count, the count is skipped, or with `raise_unavailable` the
    PrometheusUnavailable is raised."""
    queries = metrics.queries()
    shapes = await asyncio.to_thread(_range_refusals, queries, limits)
    for metric, (refusal, _) in shapes.items():
        if refusal is not None:
            raise ValidationFailed(
                f"{FIELD_OF[metric]}: {refusal}",
                field=FIELD_OF[metric],
                bound="NUFI_PROMQL_MAX_RANGE_SECONDS, NUFI_PROMQL_MIN_SUBQUERY_STEP_SECONDS",
                max_range_seconds=limits.max_range_seconds,
                min_subquery_step_seconds=limits.min_subquery_step_seconds,
            )
    countable = [metric for metric, (_, vector) in shapes.items() if vector]
    counts = await asyncio.gather(
        *(_count(queries[metric], prometheus, limits, raise_unavailable) for metric in countable)
    )
    for metric, count in zip(countable, counts, strict=True):
        field, query = FIELD_OF[metric], queries[metric]
        if count == _TIMED_OUT:
            raise ValidationFailed(
                f"{field}: counting the series of `{query}` took longer than "
                f"{limits.series_check_timeout_seconds:g} s (NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS), so "
                "it is too costly to run for every snapshot; select fewer series or shorter ranges",
                field=field,
                bound="NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS",
                series_check_timeout_seconds=limits.series_check_timeout_seconds,
            )
        if count is not None and count > limits.max_series:
            raise ValidationFailed(
                f"{field}: `{query}` selects {count} series, more than the {limits.max_series} NuFi "
                "allows (NUFI_PROMQL_MAX_SERIES); narrow its selectors or aggregate, e.g. "
                "`max by (node, device) (...)`",
                field=field,
                bound="NUFI_PROMQL_MAX_SERIES",
                max_series=limits.max_series,
                series=count,
            )


_TIMED_OUT = -1


def _range_refusals(
    queries: dict[MetricKey, str], limits: AdminQueryLimits
) -> dict[MetricKey, tuple[str | None, bool]]:
    """Per quantity: why its ranges are too costly (or None), and whether it is worth counting (it
    parses to something that may be a vector). Runs in a worker thread: it parses."""
    found: dict[MetricKey, tuple[str | None, bool]] = {}
    for metric, query in queries.items():
        try:
            refusal = range_problem(
                query,
                max_range_seconds=limits.max_range_seconds,
                min_step_seconds=limits.min_subquery_step_seconds,
            )
            vector = instant_vector_problem(query) is None
        except ExpressionError:
            refusal, vector = None, False
        found[metric] = (refusal, vector)
    return found


async def _count(
    query: str, prometheus: SeriesCounter, limits: AdminQueryLimits, raise_unavailable: bool
) -> int | None:
    """The series count, _TIMED_OUT, or None when Prometheus could not count (left to the check)."""
    try:
        return await prometheus.count_series(query, timeout_seconds=limits.series_check_timeout_seconds)
    except PrometheusTimedOut:
        return _TIMED_OUT
    except PrometheusQueryRejected:
        return None
    except PrometheusUnavailable:
        if raise_unavailable:
            raise
        return None


async def check_metrics(
    labels: LabelsDraft,
    metrics: MetricsDraft,
    prometheus: PrometheusQueries,
    *,
    usable: ValueFilter = finite_value,
    raise_unavailable: bool = False,
) -> MetricsCheck:
    """Check the label mapping, then every expression concurrently (one instant query each).

    `usable` is the device type's fetcher's judgement of a sample value: what it refuses is shown as
    null and warned about, as monitoring will show it as not reported. An expression Prometheus
    cannot answer is a failed result, or with `raise_unavailable` the PrometheusUnavailable is raised
    (a save must not blame the expression for an outage)."""
    label_errors = _label_errors(labels)
    queries = metrics.queries()
    checked = await asyncio.gather(
        *(
            _check_one(metric, query, labels, label_errors, prometheus, usable, raise_unavailable)
            for metric, query in queries.items()
        )
    )
    results: dict[str, MetricCheck] = dict(zip(queries, checked, strict=True))
    ok = not label_errors and all(result.ok for result in results.values())
    return MetricsCheck(ok=ok, results=results, label_errors=label_errors)


def _label_errors(labels: LabelsDraft) -> dict[str, str]:
    errors: dict[str, str] = {}
    for field in ("node", "device", "pod", "namespace"):
        name: str | None = getattr(labels, field)
        problem = None if name is None else label_name_problem(name)
        if problem is not None:
            errors[field] = problem
    if "device" not in errors and labels.node == labels.device:
        errors["device"] = (
            f"the node and device labels are both `{labels.node}`: map the label that tells the devices "
            "of one node apart (e.g. `device`, `gpu`)"
        )
    return errors


async def _check_one(
    metric: MetricKey,
    query: str,
    labels: LabelsDraft,
    label_errors: dict[str, str],
    prometheus: PrometheusQueries,
    usable: ValueFilter,
    raise_unavailable: bool,
) -> MetricCheck:
    try:
        shape_problem = await asyncio.to_thread(instant_vector_problem, query)
    except ExpressionError as exc:
        return _failed(query, f"{exc}. Fix the PromQL expression.")
    if shape_problem is not None:
        return _failed(query, shape_problem)
    try:
        result = await prometheus.query(query)
    except PrometheusQueryRejected as exc:
        return _failed(query, f"Prometheus rejected `{query}` ({exc.error_type}): {exc.error}")
    except PrometheusUnavailable as exc:
        if raise_unavailable:
            raise
        return _failed(query, f"the expression could not be tried: {exc.detail}")
    if result.result_type != "vector":
        return _failed(
            query,
            f"`{query}` returns a {result.result_type}, not one series per device; "
            "select the per-device metric",
        )
    samples = result.samples
    node_label = labels.node if "node" not in label_errors else None
    device_label = labels.device if "device" not in label_errors else None
    warnings = list(result.warnings)
    if not samples:
        warnings.append(
            f"no series yet: Prometheus has no data for `{query}` right now. If the exporter was just "
            "deployed, wait for its first scrape; otherwise check the metric name and that Prometheus "
            "scrapes the exporter."
        )
        return MetricCheck(ok=True, query=query, warnings=warnings)
    missing = [
        name
        for name in (node_label, device_label)
        if name is not None and any(not sample.metric.get(name) for sample in samples)
    ]
    error = _missing_labels_message(query, missing, samples, labels) if missing else None
    if not missing and node_label is not None and device_label is not None:
        warnings.extend(_duplicate_warning(query, samples, node_label, device_label))
    warnings.extend(_plausibility_warnings(metric, samples, usable))
    warnings.extend(_conversion_warnings(samples))
    return MetricCheck(
        ok=error is None,
        query=query,
        series=len(samples),
        sample=_sample(samples, node_label, device_label, lambda value: usable(metric, value)),
        missing_labels=missing,
        error=error,
        warnings=warnings,
    )


def _failed(query: str, message: str) -> MetricCheck:
    return MetricCheck(ok=False, query=query, error=message)


def _missing_labels_message(
    query: str, missing: list[str], samples: Sequence[Sample], labels: LabelsDraft
) -> str:
    counts = [sum(1 for sample in samples if not sample.metric.get(name)) for name in missing]
    which = " and ".join(
        f"{count} of {len(samples)} series have no `{name}` label"
        for name, count in zip(missing, counts, strict=True)
    )
    present = sorted({name for sample in samples for name in sample.metric if name != "__name__"})
    shown = ", ".join(f"`{name}`" for name in present[:_SHOWN_LABELS]) or "none"
    if len(present) > _SHOWN_LABELS:
        shown += ", ..."
    return (
        f"{which}: NuFi needs both labels on every series to tell which node and device it describes. "
        f"Map the labels the series carry (they have: {shown}), or aggregate keeping them, e.g. "
        f"`max by ({labels.node}, {labels.device}) ({query})`."
    )


def _duplicate_warning(
    query: str, samples: Sequence[Sample], node_label: str, device_label: str
) -> list[str]:
    per_device = Counter((sample.metric[node_label], sample.metric[device_label]) for sample in samples)
    repeated = [key for key, count in per_device.items() if count > 1]
    if not repeated:
        return []
    node, device = sorted(repeated)[0]
    return [
        f"{len(repeated)} device(s) have more than one series (e.g. {node_label}={node}, "
        f"{device_label}={device}); NuFi uses the highest value. To choose yourself, aggregate to one "
        f"series per device, e.g. `max by ({node_label}, {device_label}) ({query})`."
    ]


def _plausibility_warnings(metric: MetricKey, samples: Sequence[Sample], usable: ValueFilter) -> list[str]:
    warnings = []
    odd = [sample for sample in samples if not math.isfinite(sample.value)]
    if odd:
        warnings.append(f"{len(odd)} of {len(samples)} values are not numbers (NaN or infinite)")
    refused = [s for s in samples if math.isfinite(s.value) and not usable(metric, s.value)]
    if refused:
        example = refused[0].value
        warnings.append(
            f"{len(refused)} of {len(samples)} values are not measurements for this device type's "
            f"fetcher (e.g. {example:g}, an exporter's marker for a value it could not read); "
            "they are shown as not reported"
        )
    wrong = [s for s in samples if usable(metric, s.value) and implausible(metric, s.value) is not None]
    if wrong:
        example = max(wrong, key=lambda s: abs(s.value)).value
        warnings.append(
            f"{len(wrong)} of {len(samples)} values look implausible (e.g. {example:g}): {_HINTS[metric]}; "
            "monitoring shows them as not reported"
        )
    return warnings


def _conversion_warnings(samples: Sequence[Sample]) -> list[str]:
    """What an expression converted: series it marked with `nufi_converted` (`from→to`, e.g. `m°C→°C`),
    as presets do when they recognise an exporter's old unit by its range."""
    conversions = Counter(
        sample.metric[CONVERTED_LABEL] for sample in samples if sample.metric.get(CONVERTED_LABEL)
    )
    warnings = []
    for conversion, count in sorted(conversions.items()):
        source, arrow, target = conversion.partition("→")
        how = f"from {source} to {target}" if arrow and source and target else f"({conversion})"
        warnings.append(
            f"{count} of {len(samples)} series were converted {how}: the exporter reports them in an older "
            "unit, recognised by its range"
        )
    return warnings


# What to do about an implausible value, per quantity; the ranges are the one rule in
# `nufi.devices.plausibility`, which the monitoring snapshot applies too.
_HINTS: dict[MetricKey, str] = {
    "utilization": f"utilization is a percentage per device from {MIN_UTILIZATION_PERCENT:g} to "
    f"{MAX_UTILIZATION_PERCENT:g} (an average over cores, not a sum; multiply a 0-1 ratio by 100)",
    "memory_used": "memory cannot be negative; check the expression and its unit",
    "memory_total": "memory cannot be negative; check the expression and its unit",
    "memory_free": "memory cannot be negative; check the expression and its unit",
    "temperature": f"temperature is expected in °C from {MIN_TEMPERATURE_CELSIUS:g} to "
    f"{MAX_TEMPERATURE_CELSIUS:g}; huge values usually mean the exporter could not read the sensor, or "
    "reports m°C",
    "power": "power draw is in W and cannot be negative",
    "health": "a health expression gives 1 for healthy and 0 for unhealthy (e.g. `x == bool 0`)",
}


def _sample(
    samples: Sequence[Sample],
    node_label: str | None,
    device_label: str | None,
    usable: Callable[[float], bool],
) -> list[SamplePoint]:
    points = [
        SamplePoint(
            node=sample.metric.get(node_label) if node_label else None,
            device=sample.metric.get(device_label) if device_label else None,
            value=sample.value if math.isfinite(sample.value) and usable(sample.value) else None,
        )
        for sample in samples
    ]
    points.sort(key=lambda point: (point.node or "", point.device or ""))
    return points[:SAMPLE_SIZE]
