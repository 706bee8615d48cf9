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
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from nufi.devices.fetcher import PrometheusQueries
from nufi.devices.readings import ValueFilter, finite_value
from nufi.devices.said import said_of_error
from nufi.devices.sample_spread import across_nodes
from nufi.devices.sample_warnings import CONVERTED_LABEL, conversion_warnings, plausibility_warnings
from nufi.devices.spec import LabelsDraft, MetricKey, MetricsDraft
from nufi.errors import ValidationFailed
from nufi.messages import Language, Message, MessageModel
from nufi.models.promql import ExpressionError, instant_vector_problem, label_name_problem, range_problem
from nufi.prom import PrometheusQueryRejected, PrometheusUnavailable, Sample
from nufi.prom.budgets import subquery_points_problem
from nufi.prom.errors import PrometheusTimedOut
from nufi.prom.gateway import AdminQueryLimits

SAMPLE_SIZE = 4
__all__ = ["CONVERTED_LABEL", "MetricCheck", "MetricsCheck", "check_metrics", "enforce_query_bounds"]
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
    """The verdict on one expression: `ok` is false exactly when `error` is set.

    `error` and `warnings` are in English until `worded` puts them in a reader's language;
    `error_message` and `warning_messages` are the same as `{code, params}` (one per warning, in the
    same order), for a face to word in its reader's language."""

    ok: bool
    query: str
    series: int = 0
    sample: list[SamplePoint] = Field(default_factory=list)
    missing_labels: list[str] = Field(default_factory=list)
    error: str | None = None
    error_message: MessageModel | None = None
    warnings: list[str] = Field(default_factory=list)
    warning_messages: list[MessageModel] = Field(default_factory=list)

    def worded(self, language: Language) -> MetricCheck:
        """The same verdict with its sentences in `language`."""
        said_error = self.error_message
        return self.model_copy(
            update={
                "error": None if said_error is None else said_error.text(language),
                "warnings": [warning.text(language) for warning in self.warning_messages],
            }
        )


class MetricsCheck(BaseModel):
    """`ok` when no label name and no expression has an error; warnings do not count.
    `label_errors` are in English until `worded`; `label_error_messages` the same per label as
    `{code, params}`."""

    ok: bool
    results: dict[str, MetricCheck]
    label_errors: dict[str, str] = Field(default_factory=dict)
    label_error_messages: dict[str, MessageModel] = Field(default_factory=dict)

    def worded(self, language: Language) -> MetricsCheck:
        """The same check with every sentence in `language`."""
        return self.model_copy(
            update={
                "results": {key: result.worded(language) for key, result in self.results.items()},
                "label_errors": {
                    field: problem.text(language) for field, problem in self.label_error_messages.items()
                },
            }
        )


def _checked(
    query: str,
    *,
    error: Message | None = None,
    warnings: Sequence[Message] = (),
    series: int = 0,
    sample: list[SamplePoint] | None = None,
    missing: list[str] | None = None,
) -> MetricCheck:
    said_error = None if error is None else MessageModel.of(error)
    said_warnings = [MessageModel.of(warning) for warning in warnings]
    return MetricCheck(
        ok=error is None,
        query=query,
        series=series,
        sample=sample or [],
        missing_labels=missing or [],
        error=None if said_error is None else said_error.text("en"),
        error_message=said_error,
        warnings=[warning.text("en") for warning in said_warnings],
        warning_messages=said_warnings,
    )


async def enforce_query_bounds(
    metrics: MetricsDraft,
    prometheus: SeriesCounter,
    limits: AdminQueryLimits,
    *,
    raise_unavailable: bool = False,
    fields: Mapping[MetricKey, str] = FIELD_OF,
) -> None:
    """Refuse (ValidationFailed, 422, naming the field and the bound) an expression that would cost
    Prometheus too much: a range or subquery wider than the limit, a subquery step finer than it, a
    subquery making more points per series than an engine allows over the longest range NuFi asks, more
    series than the limit, or a series count that does not finish within its timeout.

    `fields` names where each quantity's expression sits in the caller's document (a device type's
    by default; a thermal policy's own condition is `custom.expression`).

    Expressions that do not parse, or cannot give a vector, are left to `check_metrics` to report.
    When Prometheus cannot count, the count is skipped, or with `raise_unavailable` the
    PrometheusUnavailable is raised."""
    queries = metrics.queries()
    shapes = await asyncio.to_thread(_range_refusals, queries, limits)
    for metric, (refusal, _) in shapes.items():
        if refusal is not None:
            raise ValidationFailed(
                code="query_bounds.range",
                params={"problem": refusal.to_data()},
                field=fields[metric],
                bound="NUFI_PROMQL_MAX_RANGE_SECONDS, NUFI_PROMQL_MIN_SUBQUERY_STEP_SECONDS, "
                "NUFI_PROMQL_MAX_POINTS_PER_SERIES",
                max_range_seconds=limits.max_range_seconds,
                min_subquery_step_seconds=limits.min_subquery_step_seconds,
                max_points_per_series=limits.max_points_per_series,
            )
    countable = [metric for metric, (_, vector) in shapes.items() if vector]
    counts = await asyncio.gather(
        *(_count(queries[metric], prometheus, limits, raise_unavailable) for metric in countable)
    )
    for metric, count in zip(countable, counts, strict=True):
        field, query = fields[metric], queries[metric]
        if count == _TIMED_OUT:
            raise ValidationFailed(
                code="query_bounds.count_timed_out",
                params={"query": query},
                field=field,
                bound="NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS",
                series_check_timeout_seconds=limits.series_check_timeout_seconds,
            )
        if count is not None and count > limits.max_series:
            raise ValidationFailed(
                code="query_bounds.too_many_series",
                params={"query": query},
                field=field,
                bound="NUFI_PROMQL_MAX_SERIES",
                max_series=limits.max_series,
                series=count,
            )


_TIMED_OUT = -1


def _range_refusals(
    queries: dict[MetricKey, str], limits: AdminQueryLimits
) -> dict[MetricKey, tuple[Message | None, bool]]:
    """Per quantity: why its ranges are too costly (or None), and whether it is worth counting (it
    parses to something that may be a vector). Runs in a worker thread: it parses."""
    found: dict[MetricKey, tuple[Message | None, bool]] = {}
    for metric, query in queries.items():
        try:
            refusal = range_problem(
                query,
                max_range_seconds=limits.max_range_seconds,
                min_step_seconds=limits.min_subquery_step_seconds,
            ) or subquery_points_problem(
                query, span_seconds=limits.longest_span_seconds, max_points=limits.max_points_per_series
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
    said = {field: MessageModel.of(problem) for field, problem in label_errors.items()}
    return MetricsCheck(
        ok=ok,
        results=results,
        label_errors={field: problem.text("en") for field, problem in said.items()},
        label_error_messages=said,
    )


def _label_errors(labels: LabelsDraft) -> dict[str, Message]:
    errors: dict[str, Message] = {}
    for field in ("node", "device", "pod", "namespace"):
        name: str | None = getattr(labels, field)
        problem = None if name is None else label_name_problem(name)
        if problem is not None:
            errors[field] = problem
    if "device" not in errors and labels.node == labels.device:
        errors["device"] = Message("metric_check.labels_same", {"name": labels.node})
    return errors


async def _check_one(
    metric: MetricKey,
    query: str,
    labels: LabelsDraft,
    label_errors: dict[str, Message],
    prometheus: PrometheusQueries,
    usable: ValueFilter,
    raise_unavailable: bool,
) -> MetricCheck:
    try:
        shape_problem = await asyncio.to_thread(instant_vector_problem, query)
    except ExpressionError as exc:
        return _checked(query, error=Message("metric_check.unparsable", {"problem": exc.problem}))
    if shape_problem is not None:
        return _checked(query, error=shape_problem)
    try:
        result = await prometheus.query(query)
    except PrometheusQueryRejected as exc:
        rejected = {"query": query, "error_type": exc.error_type, "error": exc.error}
        return _checked(query, error=Message("metric_check.rejected", rejected))
    except PrometheusUnavailable as exc:
        if raise_unavailable:
            raise
        untried = {"reason": said_of_error(exc)}
        return _checked(query, error=Message("metric_check.untried", untried))
    if result.result_type != "vector":
        not_vector = {"query": query, "result_type": result.result_type}
        return _checked(query, error=Message("metric_check.not_vector", not_vector))
    samples = result.samples
    node_label = labels.node if "node" not in label_errors else None
    device_label = labels.device if "device" not in label_errors else None
    # Prometheus' own warnings are its words: quoted inside a sentence of ours.
    warnings = [Message("metric_check.prometheus_warning", {"warning": w}) for w in result.warnings]
    if not samples:
        warnings.append(Message("metric_check.no_series", {"query": query}))
        return _checked(query, warnings=warnings)
    missing = [
        name
        for name in (node_label, device_label)
        if name is not None and any(not sample.metric.get(name) for sample in samples)
    ]
    error = _missing_labels_message(query, missing, samples, labels) if missing else None
    if not missing and node_label is not None and device_label is not None:
        warnings.extend(_duplicate_warning(query, samples, node_label, device_label))
    warnings.extend(plausibility_warnings(metric, samples, usable))
    warnings.extend(conversion_warnings(samples))
    return _checked(
        query,
        error=error,
        warnings=warnings,
        series=len(samples),
        sample=_sample(samples, node_label, device_label, lambda value: usable(metric, value)),
        missing=missing,
    )


def _missing_labels_message(
    query: str, missing: list[str], samples: Sequence[Sample], labels: LabelsDraft
) -> Message:
    absent = [
        Message(
            "metric_check.label_absent",
            {"count": sum(1 for s in samples if not s.metric.get(name)), "total": len(samples), "name": name},
        )
        for name in missing
    ]
    which = (
        absent[0]
        if len(absent) == 1
        else Message("metric_check.both", {"first": absent[0], "second": absent[1]})
    )
    present = sorted({name for sample in samples for name in sample.metric if name != "__name__"})
    shown: object = ", ".join(present[:_SHOWN_LABELS]) + (", ..." if len(present) > _SHOWN_LABELS else "")
    if not present:
        shown = Message("metric_check.no_labels")
    return Message(
        "metric_check.missing_labels",
        {"which": which, "present": shown, "node": labels.node, "device": labels.device, "query": query},
    )


def _duplicate_warning(
    query: str, samples: Sequence[Sample], node_label: str, device_label: str
) -> list[Message]:
    per_device = Counter((sample.metric[node_label], sample.metric[device_label]) for sample in samples)
    repeated = [key for key, count in per_device.items() if count > 1]
    if not repeated:
        return []
    node, device = sorted(repeated)[0]
    params = {
        "count": len(repeated),
        "node_label": node_label,
        "node": node,
        "device_label": device_label,
        "device": device,
        "query": query,
    }
    return [Message("metric_check.duplicates", params)]


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
    return across_nodes(points, SAMPLE_SIZE)
