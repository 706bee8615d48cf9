"""Device readings: query results joined by (node, device) and normalised to %, bytes, °C and W.

Each reported quantity comes from one instant query returning one series per device; the series are
joined in memory on the values of the type's node and device labels. A quantity the type does not
report stays None (never 0). When several series describe one device (one per pod sharing it, a
partition next to the whole card, two scrape jobs), the highest value is taken: for temperature and
memory the conservative choice, and the whole card outranks a partition of it. Health is the
exception: the lowest value is taken, so one series saying unhealthy (0) is enough.

Every device an exporter names is listed, even one that reports a single quantity (only its health,
say): its other values are None.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from nufi.devices.said import said_of_error
from nufi.devices.spec import LabelsDraft, MetricKey, MetricsDraft
from nufi.devices.units import MemoryUnit, to_bytes
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.prom import QueryResult, Sample

LabelReader = Callable[[Mapping[str, str], str], str | None]
ValueFilter = Callable[[MetricKey, float], bool]
QueryOutcome = QueryResult | NufiError
DeviceKey = tuple[str, str]


@dataclass(frozen=True)
class _OnNode:
    # A base of its own so that a reading's node comes first, before the device's values: readings are
    # built positionally (node, device, utilization, ...) by plugins and their tests.
    node: str


@dataclass(frozen=True)
class DeviceValues:
    """A device's values in %, bytes, °C and W, and the pod holding it; None for a quantity the type
    does not report or that had no usable sample. What a reading and a snapshot's entry both hold."""

    device: str
    utilization_percent: float | None = None
    memory_used_bytes: float | None = None
    memory_total_bytes: float | None = None
    temperature_celsius: float | None = None
    power_watts: float | None = None
    pod: str | None = None
    namespace: str | None = None

    def values(self) -> dict[str, Any]:
        """These fields by name, to make another record of the same device from."""
        return {one.name: getattr(self, one.name) for one in fields(DeviceValues)}


@dataclass(frozen=True)
class DeviceReading(DeviceValues, _OnNode):
    """What one device reports right now, on its node. `sampled_at` holds, per quantity, the timestamp
    Prometheus gave the sample: for an instant query that is the evaluation instant, and a device whose
    exporter stopped drops out of the results once Prometheus considers its series stale (at once when
    the target goes away, else after the 5-minute lookback). Readings asked for a past instant (`at`)
    carry that instant."""

    # 1 healthy, 0 unhealthy, as the type's health expression gives it (see `MetricsDraft`).
    health: float | None = None
    sampled_at: Mapping[MetricKey, float] = field(default_factory=dict)


@dataclass(frozen=True)
class MetricProblem:
    """Why a quantity is missing or partial: the query failed, or series could not be attributed.
    `said` is the catalog message (code and params) a face words; `message` its English. A plain
    sentence is still taken from callers not yet converted to codes, and quoted as it is."""

    metric: MetricKey
    query: str
    said: Message | str

    @property
    def message(self) -> str:
        return self.said if isinstance(self.said, str) else self.said.text("en")


@dataclass(frozen=True)
class Readings:
    """Every device a type's expressions report on, sorted by (node, device), with per-metric problems."""

    devices: tuple[DeviceReading, ...]
    problems: tuple[MetricProblem, ...] = ()
    queried_at: float = 0.0


def plain_label(labels: Mapping[str, str], name: str) -> str | None:
    """The value of label `name`; Prometheus drops empty labels, so empty counts as absent."""
    return labels.get(name) or None


def finite_value(metric: MetricKey, value: float) -> bool:
    return math.isfinite(value)


@dataclass
class _Picked:
    value: float
    timestamp: float


@dataclass
class _Attribution:
    pod: str | None = None
    namespace: str | None = None


def assemble_readings(
    labels: LabelsDraft,
    metrics: MetricsDraft,
    outcomes: Mapping[MetricKey, QueryOutcome],
    *,
    queried_at: float = 0.0,
    label_value: LabelReader = plain_label,
    usable: ValueFilter = finite_value,
) -> Readings:
    """Join one query outcome per reported quantity into per-device readings."""
    queries = metrics.queries()
    problems: list[MetricProblem] = []
    values: dict[MetricKey, dict[DeviceKey, _Picked]] = {}
    attribution: dict[DeviceKey, _Attribution] = {}
    for metric, query in queries.items():
        outcome = outcomes.get(metric)
        if outcome is None:
            problems.append(MetricProblem(metric, query, Message("readings.not_run")))
            continue
        if isinstance(outcome, NufiError):
            problems.append(MetricProblem(metric, query, said_of_error(outcome)))
            continue
        if outcome.result_type != "vector":
            problems.append(
                MetricProblem(
                    metric,
                    query,
                    Message("readings.not_vector", {"query": query, "result_type": outcome.result_type}),
                )
            )
            continue
        picked, unattributed = _per_device(metric, outcome.samples, labels, label_value, usable, attribution)
        values[metric] = picked
        if unattributed:
            problems.append(MetricProblem(metric, query, _unattributed_message(query, unattributed, labels)))
    # Every attributed device is listed, even one whose samples were all unusable (its values are None).
    keys = sorted(attribution)
    unit = metrics.memory.unit if metrics.memory is not None else MemoryUnit.BYTES
    devices = tuple(_reading(key, values, attribution.get(key), unit) for key in keys)
    return Readings(devices=devices, problems=tuple(problems), queried_at=queried_at)


def _per_device(
    metric: MetricKey,
    samples: tuple[Sample, ...],
    labels: LabelsDraft,
    label_value: LabelReader,
    usable: ValueFilter,
    attribution: dict[DeviceKey, _Attribution],
) -> tuple[dict[DeviceKey, _Picked], int]:
    picked: dict[DeviceKey, _Picked] = {}
    unattributed = 0
    for sample in samples:
        node = label_value(sample.metric, labels.node)
        device = label_value(sample.metric, labels.device)
        if node is None or device is None:
            unattributed += 1
            continue
        key = (node, device)
        _attribute(attribution, key, sample.metric, labels, label_value)
        if not usable(metric, sample.value):
            continue
        current = picked.get(key)
        if current is None or _outranks(metric, sample.value, current.value):
            picked[key] = _Picked(sample.value, sample.timestamp)
    return picked, unattributed


def _outranks(metric: MetricKey, value: float, current: float) -> bool:
    # The conservative value of one device: the highest reading, but the worst health.
    return value < current if metric == "health" else value > current


def _attribute(
    attribution: dict[DeviceKey, _Attribution],
    key: DeviceKey,
    series: Mapping[str, str],
    labels: LabelsDraft,
    label_value: LabelReader,
) -> None:
    found = attribution.setdefault(key, _Attribution())
    if found.pod is not None or labels.pod is None:
        return
    pod = label_value(series, labels.pod)
    if pod is not None:
        # Pod and namespace come from the same series, so they always name one workload.
        found.pod = pod
        found.namespace = label_value(series, labels.namespace) if labels.namespace else None


def _reading(
    key: DeviceKey,
    values: Mapping[MetricKey, Mapping[DeviceKey, _Picked]],
    attribution: _Attribution | None,
    unit: MemoryUnit,
) -> DeviceReading:
    def pick(metric: MetricKey) -> _Picked | None:
        return values.get(metric, {}).get(key)

    used, total, free = pick("memory_used"), pick("memory_total"), pick("memory_free")
    total_bytes = None
    if total is not None:
        total_bytes = to_bytes(total.value, unit)
    elif free is not None and used is not None:
        total_bytes = to_bytes(used.value + free.value, unit)
    utilization, temperature, power = pick("utilization"), pick("temperature"), pick("power")
    health = pick("health")
    sampled_at: dict[MetricKey, float] = {}
    for metric in values:
        found = pick(metric)
        if found is not None:
            sampled_at[metric] = found.timestamp
    return DeviceReading(
        node=key[0],
        device=key[1],
        utilization_percent=utilization.value if utilization else None,
        memory_used_bytes=to_bytes(used.value, unit) if used else None,
        memory_total_bytes=total_bytes,
        temperature_celsius=temperature.value if temperature else None,
        power_watts=power.value if power else None,
        health=health.value if health else None,
        pod=attribution.pod if attribution else None,
        namespace=attribution.namespace if attribution else None,
        sampled_at=sampled_at,
    )


def _unattributed_message(query: str, count: int, labels: LabelsDraft) -> Message:
    return Message(
        "readings.unattributed",
        {"count": count, "query": query, "node": labels.node, "device": labels.device},
    )
