"""NVIDIA dcgm-exporter: default-counter gauges with its label set (released 4.x shape)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prometheus_client.metrics_core import Metric

from ..hardware import MIB, HardwareSpec
from ..readings import Quantity, Reading
from .base import Families, Naming, OverrideTarget, Profile

GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
MEM_COPY_UTIL = "DCGM_FI_DEV_MEM_COPY_UTIL"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_RESERVED = "DCGM_FI_DEV_FB_RESERVED"
GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP"
MEMORY_TEMP = "DCGM_FI_DEV_MEMORY_TEMP"
POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE"
SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK"
MEM_CLOCK = "DCGM_FI_DEV_MEM_CLOCK"

DRIVER_VERSION = "550.90.07"
_SM_CLOCK_IDLE_MHZ, _SM_CLOCK_BUSY_MHZ, _MEM_CLOCK_MHZ = 210, 1410, 1593

# --use-old-namespace names of the identity and pod labels.
_LEGACY = {"UUID": "uuid", "container": "container_name", "namespace": "pod_namespace", "pod": "pod_name"}


class DcgmProfile(Profile):
    name = "dcgm"
    description = "NVIDIA dcgm-exporter, DCGM_FI_DEV_*"
    default_port = 9400
    pod_resources_api = "v1"
    resource_patterns = ("nvidia.com/gpu", "nvidia.com/mig-*")
    hardware = HardwareSpec(
        model="NVIDIA A100-SXM4-80GB",
        memory_total_bytes=81920 * MIB,
        memory_reserved_bytes=567 * MIB,
        idle_watts=60.0,
        max_watts=400.0,
    )
    namings = (Naming.CURRENT, Naming.LEGACY)

    def device_label(self, index: int) -> str:
        return f"nvidia{index}"

    def override_targets(self) -> dict[str, OverrideTarget]:
        return {
            GPU_UTIL: OverrideTarget(Quantity.UTILIZATION),
            FB_USED: OverrideTarget(Quantity.MEMORY_USED, MIB),
            GPU_TEMP: OverrideTarget(Quantity.TEMPERATURE),
            POWER_USAGE: OverrideTarget(Quantity.POWER),
        }

    def _labels(self, reading: Reading) -> dict[str, str | None]:
        device, owner = reading.device, reading.owner
        labels: dict[str, str | None] = {
            "gpu": str(device.index),
            "UUID": f"GPU-{device.uuid}",
            "pci_bus_id": f"00000000:{device.pci_bus:02X}:00.0",
            "device": self.device_label(device.index),
            "modelName": self.hardware.model,
            "Hostname": device.node,
            "DCGM_FI_DRIVER_VERSION": DRIVER_VERSION,
            "container": owner.container if owner else None,
            "namespace": owner.namespace if owner else None,
            "pod": owner.pod if owner else None,
        }
        if self.naming is Naming.LEGACY:
            labels = {_LEGACY.get(name, name): value for name, value in labels.items()}
        return labels

    def render(self, readings: Sequence[Reading]) -> Iterable[Metric]:
        out = Families()
        reserved = self.hardware.memory_reserved_bytes / MIB
        for reading in readings:
            labels = self._labels(reading)
            total = reading.memory_total / MIB
            used = round(reading.memory_used / MIB)
            util = round(reading.utilization)
            busy = min(1.0, reading.utilization / 20.0)
            sm_clock = round(_SM_CLOCK_IDLE_MHZ + (_SM_CLOCK_BUSY_MHZ - _SM_CLOCK_IDLE_MHZ) * busy)
            out.gauge(SM_CLOCK, "SM clock frequency (in MHz).", labels, sm_clock)
            out.gauge(MEM_CLOCK, "Memory clock frequency (in MHz).", labels, _MEM_CLOCK_MHZ)
            out.gauge(MEMORY_TEMP, "Memory temperature (in C).", labels, round(reading.temperature + 4))
            out.gauge(GPU_TEMP, "GPU temperature (in C).", labels, round(reading.temperature))
            out.gauge(POWER_USAGE, "Power draw (in W).", labels, round(reading.power, 3))
            out.gauge(GPU_UTIL, "GPU utilization (in %).", labels, util)
            out.gauge(MEM_COPY_UTIL, "Memory utilization (in %).", labels, round(util * 0.35))
            out.gauge(
                FB_FREE, "Framebuffer memory free (in MiB).", labels, max(0, round(total - reserved - used))
            )
            out.gauge(FB_USED, "Framebuffer memory used (in MiB).", labels, used)
            out.gauge(FB_RESERVED, "Framebuffer memory reserved (in MiB).", labels, round(reserved))
        return out.metrics()
