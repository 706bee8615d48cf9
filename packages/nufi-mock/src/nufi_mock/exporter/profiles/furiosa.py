"""FuriosaAI furiosa-metrics-exporter for RNGD: per-core utilisation, labelled temperature and power.

With quirks, the first card of the first node is partitioned in two, each half held by a pod (as
`furiosa.ai/rngd-4core.24gb` allocates it): its device-wise series appear once for the whole card
(`core="0-7"`, no pod) and again per partition (`core="0-3"`, `"4-7"`, with the pod's labels) with
identical values, and each core's series carries its partition's pod, as real exporters emit them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prometheus_client.metrics_core import Metric

from ..hardware import GIB, HardwareSpec
from ..readings import PodRef, Quantity, Reading
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
PARTITION_NAMESPACE = "npu-jobs"
PARTITION_CONTAINER = "main"

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

    def partitions(self, reading: Reading, first_node: str) -> list[tuple[str, PodRef]]:
        """With quirks, the core ranges the card of `reading` is partitioned into and the pod holding
        each (none for cards left whole)."""
        if not self.quirks or reading.device.node != first_node or reading.device.index != 0:
            return []
        cores = len(reading.core_utilization or (reading.utilization,))
        half = cores // 2
        if half == 0:
            return []
        return [
            (
                f"{start}-{start + half - 1}",
                PodRef(PARTITION_NAMESPACE, f"rngd-part-{part}", PARTITION_CONTAINER),
            )
            for part, start in enumerate((0, half))
        ]

    def _labels(self, reading: Reading, core: str, owner: PodRef | None = None) -> dict[str, str | None]:
        device = reading.device
        owner = owner or reading.owner
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
        first_node = readings[0].device.node if readings else ""
        for reading in readings:
            cores = reading.core_utilization or (reading.utilization,)
            partitions = self.partitions(reading, first_node)
            device_wise = [self._labels(reading, f"0-{len(cores) - 1}")]
            device_wise += [self._labels(reading, span, pod) for span, pod in partitions]
            # The board sensor warms with the chip, but far less.
            ambient = 30.0 + (reading.temperature - 30.0) * 0.25
            for labels in device_wise:
                out.gauge(ALIVE, "NPU liveness (1 = alive).", labels, 1 if reading.healthy else 0)
                out.gauge(
                    TEMPERATURE,
                    "NPU temperature in degrees Celsius.",
                    {**labels, "label": "peak"},
                    round(reading.temperature, 2),
                )
                out.gauge(
                    TEMPERATURE,
                    "NPU temperature in degrees Celsius.",
                    {**labels, "label": "ambient"},
                    round(ambient, 2),
                )
                out.gauge(POWER, "NPU power in watts.", {**labels, "label": "rms"}, round(reading.power, 2))
            for core, value in enumerate(cores):
                per_core = self._labels(reading, str(core), _holder(partitions, core))
                out.gauge(CORE_UTILIZATION, "NPU core utilization in percent.", per_core, round(value, 2))
                out.gauge(CORE_FREQUENCY, "NPU core frequency in MHz.", per_core, _CORE_FREQUENCY_MHZ)
            for labels in device_wise:
                out.gauge(DRAM_TOTAL, "NPU DRAM size in bytes.", labels, round(reading.memory_total))
                out.gauge(DRAM_USAGE, "NPU DRAM in use in bytes.", labels, round(reading.memory_used))
        return out.metrics()


def _holder(partitions: Sequence[tuple[str, PodRef]], core: int) -> PodRef | None:
    for span, pod in partitions:
        start, _, end = span.partition("-")
        if int(start) <= core <= int(end):
            return pod
    return None
