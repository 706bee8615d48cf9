"""PromQL for time ranges: one expression per series family, built around the type's expressions.

Each family (utilization, temperature, power; memory used, and total or free) becomes one
`query_range`:

- per device, `max by (<node>, <device>) (E)`: one series per device, the highest where several
  describe it, as snapshots do;
- filtered by node and device at the output, whatever `E` looks like inside:
  `... and on (<node>) label_replace(vector(1), "<node>", "<value>", "", "")`. The value is compared
  for equality, never as a regex; it passes through label_replace's template, where `$` is written
  `$$`, and then becomes a double-quoted PromQL string (interop-facts §6.3);
- per node, Prometheus aggregates the per-device series over their finite values: the average for
  utilization and temperature, the sum for memory and power.
"""

from __future__ import annotations

from typing import Literal

from nufi.devices.spec import DeviceType, LabelsDraft, MetricKey
from nufi.monitoring.ranges.request import Grouping, RangeMetric, RangeRequest
from nufi.prom.promql import quote_label_value

NodeAggregation = Literal["avg", "sum"]
NODE_AGGREGATION: dict[RangeMetric, NodeAggregation] = {
    "utilization": "avg",
    "temperature": "avg",
    "memory": "sum",
    "power": "sum",
}


def families(device_type: DeviceType, metric: RangeMetric) -> dict[MetricKey, str]:
    """The type's expressions behind `metric`; empty when the type does not report it."""
    queries = device_type.metrics.queries()
    if metric == "memory":
        keys: tuple[MetricKey, ...] = ("memory_used", "memory_total", "memory_free")
    else:
        keys = (metric,)
    return {key: queries[key] for key in keys if key in queries}


def range_expressions(device_type: DeviceType, request: RangeRequest) -> dict[MetricKey, str]:
    """One PromQL expression per series family of the requested metric."""
    return {
        key: range_expression(expression, device_type.labels, request)
        for key, expression in families(device_type, request.metric).items()
    }


def range_expression(expression: str, labels: LabelsDraft, request: RangeRequest) -> str:
    node, device = labels.node, labels.device
    selected = f"max by ({node}, {device}) ({expression})"
    wanted = output_filter(labels, node_value=request.node, device_value=request.device)
    if wanted is not None:
        selected = f"({selected}) and on ({', '.join(wanted[0])}) {wanted[1]}"
    if request.by == "device":
        return selected
    operator = NODE_AGGREGATION[request.metric]
    return f"{operator} by ({node}) ((({selected}) < +Inf) > -Inf)"


def output_filter(
    labels: LabelsDraft, *, node_value: str | None, device_value: str | None
) -> tuple[list[str], str] | None:
    """The label names to match on and a one-series vector carrying the wanted values."""
    names: list[str] = []
    vector = "vector(1)"
    for name, value in ((labels.node, node_value), (labels.device, device_value)):
        if value is None:
            continue
        names.append(name)
        vector = f'label_replace({vector}, {quote_label_value(name)}, {replacement(value)}, "", "")'
    return (names, vector) if names else None


def replacement(value: str) -> str:
    """`value` as label_replace's replacement: a template in which `$` starts a group reference, so a
    literal `$` is written `$$`; then a PromQL string literal."""
    return quote_label_value(value.replace("$", "$$"))


def peak_expression(
    expression: str, labels: LabelsDraft, *, by: Grouping, window_seconds: float, resolution_seconds: float
) -> str:
    """The highest value of `expression` per device (or, per node, of the node's hottest device) over
    the `window_seconds` before each point, sampled every `resolution_seconds` (a subquery): a short
    peak between two points of a range is not lost, as it is when a range only samples at its step."""
    node, device = labels.node, labels.device
    finite = f"((max by ({node}, {device}) ({expression})) < +Inf) > -Inf"
    grouped = finite if by == "device" else f"max by ({node}) ({finite})"
    window, resolution = _duration(window_seconds), _duration(resolution_seconds)
    return f"max_over_time(({grouped})[{window}:{resolution}])"


def _duration(seconds: float) -> str:
    """Seconds as a PromQL duration, in whole milliseconds (Prometheus' resolution)."""
    return f"{max(1, round(seconds * 1000))}ms"
