"""The seed's own four metrics for the mock LPU, and its health."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prometheus_client.metrics_core import Metric

from nufi_mock.inventory import DEVICE_PREFIX

from ..hardware import GIB, HardwareSpec
from ..readings import Quantity, Reading
from .base import Families, OverrideTarget, Profile

UTILIZATION = "lpu_utilization_percent"
MEMORY_USED = "lpu_memory_used_bytes"
MEMORY_TOTAL = "lpu_memory_total_bytes"
TEMPERATURE = "lpu_temperature_celsius"
HEALTH = "lpu_health"


class LpuProfile(Profile):
    name = "lpu"
    description = "the mock LPU's lpu_* metrics"
    default_port = 9850
    pod_resources_api = "v1"
    # The device plugin's resource, and the DRA driver's name for devices held through claims.
    resource_patterns = ("hyperaccel.ai/lpu", "lpu.hyperaccel.ai")
    hardware = HardwareSpec(model="HyperAccel LPU (mock)", memory_total_bytes=16 * GIB, idle_watts=15.0)

    def device_label(self, index: int) -> str:
        return f"{DEVICE_PREFIX}{index}"

    def override_targets(self) -> dict[str, OverrideTarget]:
        return {
            UTILIZATION: OverrideTarget(Quantity.UTILIZATION),
            MEMORY_USED: OverrideTarget(Quantity.MEMORY_USED),
            MEMORY_TOTAL: OverrideTarget(Quantity.MEMORY_TOTAL),
            TEMPERATURE: OverrideTarget(Quantity.TEMPERATURE),
            HEALTH: OverrideTarget(Quantity.HEALTH),
        }

    def render(self, readings: Sequence[Reading]) -> Iterable[Metric]:
        out = Families()
        for reading in readings:
            owner = reading.owner
            labels = {
                "node": reading.device.node,
                "device": self.device_label(reading.device.index),
                "pod": owner.pod if owner else None,
                "namespace": owner.namespace if owner else None,
            }
            utilization, temperature = round(reading.utilization, 2), round(reading.temperature, 2)
            out.gauge(UTILIZATION, "LPU compute utilization in percent (0-100).", labels, utilization)
            out.gauge(MEMORY_USED, "LPU device memory in use, in bytes.", labels, round(reading.memory_used))
            out.gauge(MEMORY_TOTAL, "LPU device memory size, in bytes.", labels, round(reading.memory_total))
            out.gauge(TEMPERATURE, "LPU chip temperature in degrees Celsius.", labels, temperature)
            out.gauge(
                HEALTH, "LPU device health: 1 healthy, 0 unhealthy.", labels, 1 if reading.healthy else 0
            )
        return out.metrics()
