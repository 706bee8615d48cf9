"""Prometheus alerting rules made from a device type: one rule group per enabled type.

The rules read the type's own mapped expressions, so a custom NPU registered a minute ago is watched
like a GPU. Every expression is first brought to the labels NuFi speaks (`node`, `device`, and
`pod`/`namespace` where the type maps them), whatever the exporter calls them, and aggregated to
exactly those: an alert is identified by the device, not by the exporter's extra labels.

The two rules about devices that do not report compare with `nufi_device_capacity`, the capacity
NuFi serves on its own `/metrics` from the nodes' status: Prometheus alone cannot tell how many
devices a node should have. Readings beyond what hardware can show (exporters' blank sentinels such
as DCGM's 2^31) never fire.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nufi.alerts.go_template import literal
from nufi.alerts.thresholds import AlertThresholds, RuleName
from nufi.devices.spec import DeviceType, Labels, Metrics
from nufi.messages import LANGUAGES, Message
from nufi.prom.promql import quote_label_value

CAPACITY_METRIC = "nufi_device_capacity"
# 1 while protection's circuit breaker holds the type's affected nodes back (NuFi's /metrics).
BREAKER_METRIC = "nufi_protection_breaker_held"
GROUP_PREFIX = "nufi-"
# The label every generated rule carries, naming which of a type's rules it is.
RULE_LABEL = "nufi_alert"
TYPE_LABEL = "device_type"
_BEYOND_CELSIUS = 1000
_SEVERITY: dict[RuleName, str] = {
    "hot": "critical",
    "memory": "warning",
    "unhealthy": "critical",
    "exporter_down": "critical",
    "missing_device": "warning",
    "breaker_held": "warning",
}
ALERT_NAMES: dict[RuleName, str] = {
    "hot": "NuFiDeviceHot",
    "memory": "NuFiDeviceMemoryNearlyFull",
    "unhealthy": "NuFiDeviceUnhealthy",
    "exporter_down": "NuFiExporterDown",
    "missing_device": "NuFiDeviceMissing",
    "breaker_held": "NuFiProtectionBreakerHeld",
}
# What the annotations' templates name, as Prometheus fills them in when the alert fires.
_FIRED = {
    "node": "{{ $labels.node }}",
    "device": "{{ $labels.device }}",
    "pod": "{{ with $labels.pod }}{{ $labels.namespace }}/{{ . }}{{ end }}",
    "value": "{{ $value | humanize }}",
}


@dataclass(frozen=True)
class RuleGroup:
    """One type's rules: `document` is the group as Prometheus' rule files and PrometheusRule hold it."""

    device_type: str
    document: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.document["name"])

    @property
    def rule_names(self) -> list[str]:
        return [str(rule["labels"][RULE_LABEL]) for rule in self.document["rules"]]


def group_name(device_type_id: str) -> str:
    return f"{GROUP_PREFIX}{device_type_id}"


def rule_group(device_type: DeviceType, thresholds: AlertThresholds, trip_celsius: float) -> RuleGroup:
    """The rules of `device_type`; `trip_celsius` is its thermal policy's trip, the hot rule's
    temperature unless `thresholds` set one."""
    shape = _Shape(device_type.labels)
    rules: list[dict[str, Any]] = []
    for name, expression, params in _conditions(device_type, shape, thresholds, trip_celsius):
        held = getattr(thresholds, name).for_seconds
        rules.append(_rule(device_type, name, expression, params | {"hold": held}, held))
    return RuleGroup(device_type.id, {"name": group_name(device_type.id), "rules": rules})


def _conditions(
    device_type: DeviceType, shape: _Shape, thresholds: AlertThresholds, trip_celsius: float
) -> list[tuple[RuleName, str, dict[str, Any]]]:
    metrics = device_type.metrics
    found: list[tuple[RuleName, str, dict[str, Any]]] = []
    if thresholds.hot.enabled and metrics.temperature is not None:
        celsius = trip_celsius if thresholds.hot.celsius is None else thresholds.hot.celsius
        hot = f"({shape.by_device('max', metrics.temperature)} >= {celsius:g}) < {_BEYOND_CELSIUS}"
        found.append(("hot", hot, {"threshold": celsius}))
    if thresholds.memory.enabled and metrics.memory is not None:
        percent = thresholds.memory.percent
        memory = f"({_memory_percent(shape, metrics)} >= {percent:g}) <= 100"
        found.append(("memory", memory, {"threshold": percent}))
    if thresholds.unhealthy.enabled and metrics.health is not None:
        found.append(("unhealthy", f"{shape.by_device('min', metrics.health)} < 1", {}))
    capacity = f"max by (node) ({CAPACITY_METRIC}{{{TYPE_LABEL}={quote_label_value(device_type.id)}}})"
    reporting = f"count by (node) ({shape.by_node_device(metrics.utilization)})"
    if thresholds.exporter_down.enabled:
        found.append(("exporter_down", f"({capacity} > 0) unless on (node) {reporting}", {}))
    if thresholds.missing_device.enabled:
        found.append(("missing_device", f"({capacity} - on (node) {reporting}) > 0", {}))
    if thresholds.breaker_held.enabled:
        held = f"{BREAKER_METRIC}{{{TYPE_LABEL}={quote_label_value(device_type.id)}}}"
        found.append(("breaker_held", f"max by ({TYPE_LABEL}) ({held}) > 0", {}))
    return found


def _memory_percent(shape: _Shape, metrics: Metrics) -> str:
    memory = metrics.memory
    assert memory is not None  # the caller checked
    used_by_device = shape.by_node_device(memory.used)
    whole = shape.by_node_device(memory.second)
    if memory.mode == "used_free":
        whole = f"({used_by_device} + {whole})"
    return f"100 * {shape.by_device('max', memory.used)} / on (node, device) group_left () {whole}"


class _Shape:
    """How to bring a type's series to NuFi's label names."""

    def __init__(self, labels: Labels) -> None:
        self._mapped = {"node": labels.node, "device": labels.device}
        if labels.pod is not None:
            self._mapped["pod"] = labels.pod
            if labels.namespace is not None:
                self._mapped["namespace"] = labels.namespace

    def renamed(self, expression: str) -> str:
        """`expression` with each mapped label under NuFi's name. A label the series lack is set
        empty (removed), so a workload label never survives from elsewhere, e.g. a target's `pod`."""
        renamed = expression
        for canonical, mapped in self._mapped.items():
            if mapped != canonical:
                arguments = ", ".join(quote_label_value(v) for v in (canonical, "$1", mapped, "(.*)"))
                renamed = f"label_replace({renamed}, {arguments})"
        return renamed

    def by_device(self, aggregation: str, expression: str) -> str:
        return f"{aggregation} by ({', '.join(self._mapped)}) ({self.renamed(expression)})"

    def by_node_device(self, expression: str) -> str:
        return f"max by (node, device) ({self.renamed(expression)})"


def _rule(
    device_type: DeviceType, name: RuleName, expression: str, params: Mapping[str, Any], held: int
) -> dict[str, Any]:
    # Prometheus renders annotations and labels as templates: what a person typed goes in as a
    # literal, so `{{` in a type's name is shown as typed, never run.
    said = dict(params) | _FIRED | {"type": literal(device_type.name)}
    annotations: dict[str, str] = {}
    for language in LANGUAGES:
        suffix = "" if language == "en" else f"_{language}"
        for part in ("summary", "description"):
            annotations[f"{part}{suffix}"] = Message(f"alerts.rule.{name}.{part}", said).text(language)
    return {
        "alert": ALERT_NAMES[name],
        "expr": expression,
        "for": f"{held}s",
        "labels": {TYPE_LABEL: literal(device_type.id), RULE_LABEL: name, "severity": _SEVERITY[name]},
        "annotations": dict(sorted(annotations.items())),
    }
