"""Query results in NuFi's terms: label sets with float values, decoded from Prometheus' `data`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from nufi.prom.errors import PrometheusUnavailable
from nufi.prom.values import DECIMAL_VALUE, SPECIAL_VALUES, parse_sample_value, parse_timestamp

ResultType = Literal["vector", "matrix", "scalar", "string"]
_RESULT_TYPES: frozenset[str] = frozenset({"vector", "matrix", "scalar", "string"})


@dataclass(frozen=True)
class Sample:
    """One value at one instant; `metric` is empty for scalars."""

    metric: Mapping[str, str]
    timestamp: float
    value: float


@dataclass(frozen=True)
class Series:
    """One label set with its (timestamp, value) points, oldest first."""

    metric: Mapping[str, str]
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class QueryResult:
    """`samples` holds vector items (or the single scalar), `series` matrix items, `text` a string
    result. `warnings` are Prometheus' own, e.g. about a truncated result."""

    result_type: ResultType
    samples: tuple[Sample, ...] = ()
    series: tuple[Series, ...] = ()
    text: str | None = None
    warnings: tuple[str, ...] = field(default=())


def parse_query_data(data: object, warnings: Sequence[str] = ()) -> QueryResult:
    """Decode the `data` member of a successful query or query_range answer."""
    body = _as_mapping(data, "data")
    result_type = body.get("resultType")
    if result_type not in _RESULT_TYPES:
        raise _malformed(f"unknown resultType {result_type!r}")
    kind = cast(ResultType, result_type)
    result = body.get("result")
    warned = tuple(str(w) for w in warnings)
    if kind == "vector":
        items = _as_list(result, "vector result")
        return QueryResult(kind, samples=_vector_items(items), warnings=warned)
    if kind == "matrix":
        items = _as_list(result, "matrix result")
        return QueryResult(kind, series=tuple(_matrix_item(i) for i in items), warnings=warned)
    timestamp, raw = _pair(result, f"{kind} result")
    if kind == "scalar":
        sample = Sample(metric={}, timestamp=timestamp, value=parse_sample_value(raw))
        return QueryResult(kind, samples=(sample,), warnings=warned)
    if not isinstance(raw, str):
        raise _malformed(f"string result {raw!r} is not a string")
    return QueryResult(kind, text=raw, warnings=warned)


def _vector_items(items: list[object]) -> tuple[Sample, ...]:
    """Vector items, checked as strictly as `_vector_item` but without its per-item call chain.

    A snapshot of a large cluster decodes tens of thousands of samples per request, so the usual
    shape takes this loop; anything unusual goes to `_vector_item`, which names what is wrong.
    """
    samples: list[Sample] = []
    for item in items:
        if type(item) is dict and "histogram" not in item:
            metric, pair = item.get("metric"), item.get("value")
            if type(metric) is dict and type(pair) is list and len(pair) == 2:
                timestamp, raw = pair
                value = _fast_value(raw)
                if (
                    value is not None
                    and type(timestamp) in (int, float)
                    and math.isfinite(timestamp)
                    and all(type(v) is str for v in metric.values())
                ):
                    samples.append(Sample(metric=metric, timestamp=float(timestamp), value=value))
                    continue
        samples.append(_vector_item(item))
    return tuple(samples)


def _fast_value(raw: object) -> float | None:
    if type(raw) is not str:
        return None
    special = SPECIAL_VALUES.get(raw)
    if special is not None:
        return special
    return float(raw) if DECIMAL_VALUE.fullmatch(raw) else None


def _vector_item(item: object) -> Sample:
    body = _as_mapping(item, "vector item")
    if "histogram" in body:
        raise _malformed("native histogram samples are not supported; query a float series instead")
    timestamp, raw = _pair(body.get("value"), "vector item value")
    return Sample(metric=_labels(body.get("metric")), timestamp=timestamp, value=parse_sample_value(raw))


def _matrix_item(item: object) -> Series:
    body = _as_mapping(item, "matrix item")
    raw_points = _as_list(body.get("values", []), "matrix item values")
    points = tuple(_point(p) for p in raw_points)
    return Series(metric=_labels(body.get("metric")), points=points)


def _point(raw: object) -> tuple[float, float]:
    timestamp, value = _pair(raw, "matrix point")
    return timestamp, parse_sample_value(value)


def _pair(raw: object, what: str) -> tuple[float, object]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise _malformed(f"{what} {raw!r} is not a [timestamp, value] pair")
    return parse_timestamp(raw[0]), raw[1]


def _labels(raw: object) -> dict[str, str]:
    if raw is None:
        return {}
    body = _as_mapping(raw, "metric")
    labels: dict[str, str] = {}
    for key, value in body.items():
        if not isinstance(value, str):
            raise _malformed(f"label {key!r} has non-string value {value!r}")
        labels[key] = value
    return labels


def _as_mapping(raw: object, what: str) -> Mapping[str, object]:
    if not isinstance(raw, dict):
        raise _malformed(f"{what} is not an object")
    return cast(Mapping[str, object], raw)


def _as_list(raw: object, what: str) -> list[object]:
    if not isinstance(raw, list):
        raise _malformed(f"{what} is not a list")
    return cast(list[object], raw)


def _malformed(problem: str) -> PrometheusUnavailable:
    # `problem` is a technical fragment (which member of the answer, as Prometheus' API names it).
    return PrometheusUnavailable(code="prometheus.malformed", params={"problem": problem})
