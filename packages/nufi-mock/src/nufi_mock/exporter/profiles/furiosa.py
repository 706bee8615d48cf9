"""FuriosaAI furiosa-metrics-exporter for RNGD: per-core utilisation, labelled temperature and power."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prometheus_client.metrics_core import Metric

from ..hardware import GIB, HardwareSpec
from ..readings import Quantity, Reading
from .base import Families, Naming, OverrideTarget, Profile

ALIVE = "furiosa_npu_alive"
TEMPERATURE = "furiosa_npu_hw_temperature"
POWER = "furiosa_npu_hw_power"
CORE_UTILIZATION = "furiosa_npu_core_utilization"
CORE_FREQUENCY = "furiosa_npu_core_frequency"
DRAM_TOTAL = "furiosa_npu_dram_total"
DRAM_USAGE = "furiosa_npu_dram_usage"

ARCH = "rngd"
FIRMWARE_VERSION = "2025.3.0+d4a2b1c"
DRIVER_VERSION = "2025.3.0+8f1e0aa"
_CORE_FREQUENCY_MHZ = 1750

# Names before the exporter's switch to hostname/namespace/pod/container (PR #50, 2025).
_LEGACY = {
    "hostname": "kubernetes_node_name",
    "namespace": "kubernetes_namespace_name",
    "pod": "kubernetes_pod_name",
    "container": "kubernetes_container_name",
}


class FuriosaProfile(Profile):
    name = "furiosa"
    description = "FuriosaAI RNGD, furiosa_npu_*"
    default_port = 6254
    pod_resources_api = "v1alpha1"
    resource_patterns = ("furiosa.ai*",)
    hardware = HardwareSpec(
        model="RNGD", memory_total_bytes=48 * GIB, cores=8, idle_watts=35.0, max_watts=180.0
    )
    namings = (Naming.CURRENT, Naming.LEGACY)

    def device_label(self, index: int) -> str:
        return f"npu{index}"

    def override_targets(self) -> dict[str, OverrideTarget]:
        return {
            CORE_UTILIZATION: OverrideTarget(Quantity.UTILIZATION),
            DRAM_USAGE: OverrideTarget(Quantity.MEMORY_USED),
            DRAM_TOTAL: OverrideTarget(Quantity.MEMORY_TOTAL),
            TEMPERATURE: OverrideTarget(Quantity.TEMPERATURE),
            POWER: OverrideTarget(Quantity.POWER),
        }

    def _labels(self, reading: Reading, core: str) -> dict[str, str | None]:
        device, owner = reading.device, reading.owner
        labels: dict[str, str | None] = {
            "arch": ARCH,
            "core": core,
            "device": self.device_label(device.index),
            "uuid": device.uuid.upper(),
            "pci_bus_id": device.pci_address(4),
            "firmware_version": FIRMWARE_VERSION,
            "driver_version": DRIVER_VERSION,
            "hostname": device.node,
            "namespace": owner.namespace if owner else None,
            "pod": owner.pod if owner else None,
            "container": owner.container if owner else None,
        }
        if self.naming is Naming.LEGACY:
            labels = {_LEGACY.get(name, name): value for name, value in labels.items()}
        return labels

    def render(self, readings: Sequence[Reading]) -> Iterable[Metric]:
        out = Families()
        for reading in readings:
            cores = reading.core_utilization or (reading.utilization,)
            whole = self._labels(reading, f"0-{len(cores) - 1}")
            # The board sensor warms with the chip, but far less.
            ambient = 30.0 + (reading.temperature - 30.0) * 0.25
            out.gauge(ALIVE, "NPU liveness (1 = alive).", whole, 1)
            out.gauge(
                TEMPERATURE,
                "NPU temperature in degrees Celsius.",
                {**whole, "label": "peak"},
                round(reading.temperature, 2),
            )
            out.gauge(
                TEMPERATURE,
                "NPU temperature in degrees Celsius.",
                {**whole, "label": "ambient"},
                round(ambient, 2),
            )
            out.gauge(POWER, "NPU power in watts.", {**whole, "label": "rms"}, round(reading.power, 2))
            for core, value in enumerate(cores):
                per_core = self._labels(reading, str(core))
                out.gauge(CORE_UTILIZATION, "NPU core utilization in percent.", per_core, round(value, 2))
                out.gauge(CORE_FREQUENCY, "NPU core frequency in MHz.", per_core, _CORE_FREQUENCY_MHZ)
            out.gauge(DRAM_TOTAL, "NPU DRAM size in bytes.", whole, round(reading.memory_total))
            out.gauge(DRAM_USAGE, "NPU DRAM in use in bytes.", whole, round(reading.memory_used))
        return out.metrics()
