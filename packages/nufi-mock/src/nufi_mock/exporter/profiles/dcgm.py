"""NVIDIA dcgm-exporter: default-counter gauges with its label set (released 4.x shape).

With `quirks`, what real scrapes show beyond the documentation (interop-facts §2.4):

- GPUs held by no pod carry the exporter's own `pod`/`namespace`/`container` (how the target labels
  appear when Prometheus scrapes with `honor_labels: true`): `nvidia-dcgm-exporter-xxxxx` in
  `gpu-operator`, container `nvidia-dcgm-exporter`;
- on the last node (by name), `Hostname` is the exporter pod's hostname rather than the node name
  (no `NODE_NAME`), and a `node` label, as a ServiceMonitor relabeling adds it, names the node;
- `DCGM_FI_DEV_MEMORY_TEMP` reads 0, as on cards without a memory sensor;
- on the first node, the highest-numbered GPU is MIG-partitioned into two `3g.40gb` instances
  (`GPU_I_ID` 1 and 2), each half the card and each held by its own pod (`MIG_PODS`).

`DCGM_FI_DEV_FB_RESERVED` is a default counter and is always emitted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prometheus_client.metrics_core import Metric

from ..hardware import MIB, HardwareSpec
from ..readings import PodRef, Quantity, Reading
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

# The quirks' exporter pod, and the pods holding the MIG instances.
EXPORTER_NAMESPACE = "gpu-operator"
EXPORTER_CONTAINER = "nvidia-dcgm-exporter"
MIG_PROFILE = "3g.40gb"
MIG_PODS = (PodRef("mig", "mig-infer-0", "server"), PodRef("mig", "mig-infer-1", "server"))


def exporter_pod(node: str) -> str:
    """The quirks' exporter pod on `node`: a DaemonSet pod name, `nvidia-dcgm-exporter-<5 chars>`."""
    digest = hashlib.sha256(node.encode()).digest()
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    return "nvidia-dcgm-exporter-" + "".join(alphabet[byte % len(alphabet)] for byte in digest[:5])


@dataclass(frozen=True)
class _Part:
    """What one set of series describes: a whole GPU, or one MIG instance (`share` of the card)."""

    reading: Reading
    owner: PodRef | None
    share: float = 1.0
    instance: int | None = None


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

    def _parts(self, readings: Sequence[Reading]) -> list[_Part]:
        if not self.quirks or not readings:
            return [_Part(reading, reading.owner) for reading in readings]
        first = min(reading.device.node for reading in readings)
        mig = max(reading.device.index for reading in readings if reading.device.node == first)
        parts: list[_Part] = []
        for reading in readings:
            if (reading.device.node, reading.device.index) != (first, mig):
                parts.append(_Part(reading, reading.owner))
                continue
            share = 1.0 / len(MIG_PODS)
            parts += [_Part(reading, pod, share, number) for number, pod in enumerate(MIG_PODS, start=1)]
        return parts

    def _labels(self, part: _Part, misnamed_node: str | None) -> dict[str, str | None]:
        device, owner = part.reading.device, part.owner
        if owner is None and self.quirks:
            owner = PodRef(EXPORTER_NAMESPACE, exporter_pod(device.node), EXPORTER_CONTAINER)
        labels: dict[str, str | None] = {
            "gpu": str(device.index),
            "UUID": f"GPU-{device.uuid}",
            "pci_bus_id": f"00000000:{device.pci_bus:02X}:00.0",
            "device": self.device_label(device.index),
            "modelName": self.hardware.model,
        }
        if part.instance is not None:
            labels |= {"GPU_I_PROFILE": MIG_PROFILE, "GPU_I_ID": str(part.instance)}
        labels |= {
            "Hostname": device.node,
            "DCGM_FI_DRIVER_VERSION": DRIVER_VERSION,
            "container": owner.container if owner else None,
            "namespace": owner.namespace if owner else None,
            "pod": owner.pod if owner else None,
        }
        if device.node == misnamed_node:
            labels |= {"Hostname": exporter_pod(device.node), "node": device.node}
        if self.naming is Naming.LEGACY:
            labels = {_LEGACY.get(name, name): value for name, value in labels.items()}
        return labels

    def render(self, readings: Sequence[Reading]) -> Iterable[Metric]:
        out = Families()
        misnamed_node = max((r.device.node for r in readings), default=None) if self.quirks else None
        for part in self._parts(readings):
            reading = part.reading
            labels = self._labels(part, misnamed_node)
            reserved = round(self.hardware.memory_reserved_bytes / MIB * part.share)
            total = reading.memory_total / MIB * part.share
            used = round(reading.memory_used / MIB * part.share)
            util = round(reading.utilization)
            busy = min(1.0, reading.utilization / 20.0)
            sm_clock = round(_SM_CLOCK_IDLE_MHZ + (_SM_CLOCK_BUSY_MHZ - _SM_CLOCK_IDLE_MHZ) * busy)
            memory_temp = 0 if self.quirks else round(reading.temperature + 4)
            out.gauge(SM_CLOCK, "SM clock frequency (in MHz).", labels, sm_clock)
            out.gauge(MEM_CLOCK, "Memory clock frequency (in MHz).", labels, _MEM_CLOCK_MHZ)
            out.gauge(MEMORY_TEMP, "Memory temperature (in C).", labels, memory_temp)
            out.gauge(GPU_TEMP, "GPU temperature (in C).", labels, round(reading.temperature))
            out.gauge(POWER_USAGE, "Power draw (in W).", labels, round(reading.power, 3))
            out.gauge(GPU_UTIL, "GPU utilization (in %).", labels, util)
            out.gauge(MEM_COPY_UTIL, "Memory utilization (in %).", labels, round(util * 0.35))
            out.gauge(
                FB_FREE, "Framebuffer memory free (in MiB).", labels, max(0, round(total - reserved - used))
            )
            out.gauge(FB_USED, "Framebuffer memory used (in MiB).", labels, used)
            out.gauge(FB_RESERVED, "Framebuffer memory reserved (in MiB).", labels, reserved)
        return out.metrics()
