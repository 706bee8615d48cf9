"""Rebellions rbln-metrics-exporter: rbln_npu_* names, or the legacy RBLN_DEVICE_STATUS:* ones, or both.

With quirks, the legacy names carry the units of the exporters that emitted them: DRAM in GiB (before
v0.2.1), temperature in m°C and power in µW (older exporters on newer drivers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prometheus_client.metrics_core import Metric

from ..hardware import GIB, HardwareSpec
from ..readings import Quantity, Reading
from .base import Families, Naming, OverrideTarget, Profile

CARD = "RBLN-CA25"
DEVICE_ID = "1250"
DRIVER_VERSION = "1.3.73"
FIRMWARE_VERSION = "1.3.73"
HEALTHY, UNHEALTHY = 0, 1
"""rbln_npu_health: 0 is healthy/active, 1 inactive (the reverse of Quantity.HEALTH)."""

# With quirks, what a legacy series' value is multiplied by (from the canonical unit).
_OLD_UNITS = {
    Quantity.MEMORY_USED: 1 / GIB,
    Quantity.MEMORY_TOTAL: 1 / GIB,
    Quantity.TEMPERATURE: 1000.0,
    Quantity.POWER: 1e6,
}
_OLD_DIGITS = {Quantity.MEMORY_USED: 5, Quantity.MEMORY_TOTAL: 5, Quantity.TEMPERATURE: 0, Quantity.POWER: 0}

# (current name, legacy name, quantity, help)
_METRICS: tuple[tuple[str, str, Quantity, str], ...] = (
    ("rbln_npu_temperature", "RBLN_DEVICE_STATUS:TEMPERATURE", Quantity.TEMPERATURE, "NPU temperature (C)."),
    ("rbln_npu_power", "RBLN_DEVICE_STATUS:CARD_POWER", Quantity.POWER, "NPU card power (W)."),
    ("rbln_npu_memory_used", "RBLN_DEVICE_STATUS:DRAM_USED", Quantity.MEMORY_USED, "NPU DRAM used (bytes)."),
    (
        "rbln_npu_memory_total",
        "RBLN_DEVICE_STATUS:DRAM_TOTAL",
        Quantity.MEMORY_TOTAL,
        "NPU DRAM total (bytes).",
    ),
    ("rbln_npu_utilization", "RBLN_DEVICE_STATUS:UTILIZATION", Quantity.UTILIZATION, "NPU utilization (%)."),
    (
        "rbln_npu_health",
        "RBLN_DEVICE_STATUS:HEALTH",
        Quantity.HEALTH,
        "NPU health (0 = active, 1 = inactive).",
    ),
)


class RblnProfile(Profile):
    name = "rbln"
    description = "Rebellions ATOM, rbln_npu_* / RBLN_DEVICE_STATUS:*"
    default_port = 9090
    pod_resources_api = "v1alpha1"
    resource_patterns = ("rebellions.ai*",)
    hardware = HardwareSpec(model=CARD, memory_total_bytes=64 * GIB, idle_watts=30.0, max_watts=180.0)
    namings = (Naming.CURRENT, Naming.LEGACY, Naming.BOTH)

    def device_label(self, index: int) -> str:
        return f"rbln{index}"

    def _names(self) -> list[tuple[str, Quantity, str, bool]]:
        """(name, quantity, help, whether the value is in the old units)."""
        chosen: list[tuple[str, Quantity, str, bool]] = []
        if self.naming in (Naming.CURRENT, Naming.BOTH):
            chosen += [(current, quantity, doc, False) for current, _, quantity, doc in _METRICS]
        if self.naming in (Naming.LEGACY, Naming.BOTH):
            chosen += [(legacy, quantity, doc, self.quirks) for _, legacy, quantity, doc in _METRICS]
        return chosen

    def override_targets(self) -> dict[str, OverrideTarget]:
        return {
            name: OverrideTarget(
                quantity,
                1 / _OLD_UNITS[quantity] if old and quantity in _OLD_UNITS else 1.0,
                flipped=quantity is Quantity.HEALTH,
            )
            for name, quantity, _, old in self._names()
        }

    def _labels(self, reading: Reading) -> dict[str, str | None]:
        device, owner = reading.device, reading.owner
        labels: dict[str, str | None] = {
            "card": CARD,
            "name": self.device_label(device.index),
            "uuid": device.uuid,
            "deviceID": DEVICE_ID,
            "hostname": device.node,
            "driver_version": DRIVER_VERSION,
            "firmware_version": FIRMWARE_VERSION,
        }
        if reading.pod_attribution:
            # In Kubernetes mode the exporter always writes the pod labels, empty when nothing holds the
            # device; Prometheus drops empty labels when it ingests them.
            labels |= {
                "namespace": owner.namespace if owner else "",
                "pod": owner.pod if owner else "",
                "container": owner.container if owner else "",
            }
        return labels

    def render(self, readings: Sequence[Reading]) -> Iterable[Metric]:
        out = Families()
        for name, quantity, doc, old in self._names():
            for reading in readings:
                value = _value(reading, quantity)
                if old and quantity in _OLD_UNITS:
                    value = _old_unit(reading, quantity)
                out.gauge(name, doc, self._labels(reading), value)
        return out.metrics()


def _value(reading: Reading, quantity: Quantity) -> float:
    if quantity is Quantity.HEALTH:
        return HEALTHY if reading.healthy else UNHEALTHY
    value = {
        Quantity.TEMPERATURE: round(reading.temperature, 1),
        Quantity.POWER: round(reading.power, 1),
        Quantity.MEMORY_USED: round(reading.memory_used),
        Quantity.MEMORY_TOTAL: round(reading.memory_total),
        Quantity.UTILIZATION: round(reading.utilization, 1),
    }
    return float(value[quantity])


def _old_unit(reading: Reading, quantity: Quantity) -> float:
    canonical = {
        Quantity.TEMPERATURE: reading.temperature,
        Quantity.POWER: reading.power,
        Quantity.MEMORY_USED: reading.memory_used,
        Quantity.MEMORY_TOTAL: reading.memory_total,
    }[quantity]
    return round(canonical * _OLD_UNITS[quantity], _OLD_DIGITS[quantity])
