"""A device type's devices right now: the snapshot the monitoring API and dashboard show.

Values are in %, bytes, °C and W; a quantity the type does not report, whose last sample is stale,
or whose value no device can have (`nufi.devices.plausibility`), is None, never 0. A device's health
is `ok`, `unhealthy`, or `unknown` when the type maps no health expression, the device gave no health
sample, or its last one is stale or neither 1 nor 0. Instants are Unix seconds; how they are written
for clients (RFC 3339, whole bytes) is the API's business (`nufi.api.schemas`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nufi.devices.readings import DeviceValues
from nufi.devices.spec import MetricKey
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.monitoring.snapshots.attribution import PodHolding

# `catalog`: the device type itself cannot be read (e.g. its fetcher is not installed);
# `plausibility`: a device reported a value no device can have, which is shown as null.
ErrorSource = Literal["prometheus", "kubernetes", "catalog", "plausibility"]
Health = Literal["ok", "unhealthy", "unknown"]


@dataclass(frozen=True)
class DeviceEntry(DeviceValues):
    """A device as the snapshot shows it: its reading's values, and its health in words."""

    health: Health = "unknown"


@dataclass(frozen=True)
class NodeEntry:
    """One node: inventory counts (None when the cluster could not be read), the pods holding the
    type's devices there (None likewise) with the node-level `workload`, and the devices reporting."""

    node: str
    capacity: int | None
    allocatable: int | None
    allocated: int | None
    pods: tuple[PodHolding, ...] | None
    workload: str | None
    devices: tuple[DeviceEntry, ...]


@dataclass(frozen=True)
class Summary:
    nodes: int
    devices: int
    avg_utilization_percent: float | None
    memory_used_bytes: float | None
    memory_total_bytes: float | None
    max_temperature_celsius: float | None
    power_watts: float | None

    @classmethod
    def of(cls, nodes: Sequence[NodeEntry]) -> Summary:
        devices = [device for node in nodes for device in node.devices]
        utilization = _present(d.utilization_percent for d in devices)
        temperature = _present(d.temperature_celsius for d in devices)
        return cls(
            nodes=len(nodes),
            devices=len(devices),
            avg_utilization_percent=sum(utilization) / len(utilization) if utilization else None,
            memory_used_bytes=_total(d.memory_used_bytes for d in devices),
            memory_total_bytes=_total(d.memory_total_bytes for d in devices),
            max_temperature_celsius=max(temperature) if temperature else None,
            power_watts=_total(d.power_watts for d in devices),
        )


@dataclass(frozen=True)
class StaleMetric:
    """A quantity of one device silent for longer than the staleness limit, with the last value it
    gave (in the snapshot's units; None for `memory_free`, which only ever gives the total)."""

    metric: MetricKey
    node: str
    device: str
    last_seen: float
    silent_seconds: float
    limit_seconds: float
    last_value: float | None = None


@dataclass(frozen=True)
class NotReporting:
    """A node that advertises devices of the type (its capacity) while none of them reports."""

    node: str
    capacity: int


@dataclass(frozen=True)
class MonitoringError:
    """Something that kept part of the data from the snapshot: a failed query, series that could not
    be placed, a value no device can have, or a cluster that could not be read. `metric` is None when
    it concerns no one quantity.

    `message` is the English sentence; `said` the same as a message of the catalogs (`code` and
    `params`), for each face to word in its reader's language. It is None only where the problem
    came without a code, and then `message` is all there is."""

    source: ErrorSource
    message: str
    metric: str | None = None
    query: str | None = None
    node: str | None = None
    device: str | None = None
    said: Message | None = None

    @property
    def code(self) -> str | None:
        return None if self.said is None else self.said.code

    @property
    def params(self) -> dict[str, Any] | None:
        return None if self.said is None else self.said.to_data()["params"]


def said_of(error: NufiError) -> Message | None:
    """The message a domain error carries, or None for one raised with a sentence of its own."""
    return Message(error.code, error.params) if error.code else None


# The code of the error a snapshot carries when the engine showed its data late (monitoring/snapshots/lag.py).
LAGGING = "metrics_backend.lagging"


@dataclass(frozen=True)
class Snapshot:
    """`time` is the instant the type was evaluated at; `lag_seconds` how much older than that the
    newest sample the engine gave was (0 when not known: Prometheus gives what it scraped last, while
    VictoriaMetrics by default hides the newest 30 s yet stamps its answers with the time asked);
    `age_seconds` how long before the read `data_time` was, so a reader always sees how old the data
    of a shared snapshot really is."""

    device_type: str
    time: float
    summary: Summary
    nodes: tuple[NodeEntry, ...]
    stale: tuple[StaleMetric, ...]
    errors: tuple[MonitoringError, ...]
    not_reporting: tuple[NotReporting, ...] = ()
    age_seconds: float = 0.0
    lag_seconds: float = 0.0

    @property
    def data_time(self) -> float:
        """When the newest sample of the snapshot was taken, as far as NuFi can tell."""
        return self.time - self.lag_seconds

    @property
    def late(self) -> MonitoringError | None:
        """The error saying the engine showed this data later than the staleness limit, if it did."""
        return next((error for error in self.errors if error.code == LAGGING), None)


def _present(values: Iterable[float | None]) -> list[float]:
    return [value for value in values if value is not None]


def _total(values: Iterable[float | None]) -> float | None:
    present = _present(values)
    return sum(present) if present else None
