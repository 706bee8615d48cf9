"""NVIDIA GPUs: the `nvidia.com/gpu` device plugin and the DCGM exporter's default counters.

DCGM names the node in `Hostname` in released exporters and in `hostname` in newer ones; every
expression copies `Hostname` into `hostname` when present, so both work with one label mapping. The
workload labels are `exported_pod`/`exported_namespace` because the usual ServiceMonitor scrapes with
`honor_labels: false`, which renames the exporter's own `pod`/`namespace`. DCGM has no total-memory
counter by default, hence used & free (in MiB).
"""

from __future__ import annotations

from nufi.devices.fetcher import GenericFetcher
from nufi.devices.spec import DeviceType, Labels, Memory, MetricKey, Metrics, ThermalDefaults
from nufi.devices.units import MemoryUnit
from nufi.prom.promql import copy_label

FETCHER_NAME = "nvidia-dcgm"
# DCGM reports a field it could not read as a "blank" sentinel: 0x7ffffff0 and up for 32-bit fields,
# 0x7ffffffffffffff0 and up for 64-bit ones, 2**47 and up for doubles. No real utilization, memory
# (MiB), temperature or power reading comes anywhere near the smallest of them.
DCGM_BLANK_FLOOR = float(0x7FFFFFF0)


def _with_node(metric: str) -> str:
    return copy_label(metric, "hostname", "Hostname")


PRESET = DeviceType(
    id="nvidia-gpu",
    name="NVIDIA GPU",
    vendor="NVIDIA",
    kind="official",
    resource_key="nvidia.com/gpu",
    labels=Labels(node="hostname", device="gpu", pod="exported_pod", namespace="exported_namespace"),
    metrics=Metrics(
        utilization=_with_node("DCGM_FI_DEV_GPU_UTIL"),
        memory=Memory(
            mode="used_free",
            used=_with_node("DCGM_FI_DEV_FB_USED"),
            free=_with_node("DCGM_FI_DEV_FB_FREE"),
            unit=MemoryUnit.MIB,
        ),
        temperature=_with_node("DCGM_FI_DEV_GPU_TEMP"),
        power=_with_node("DCGM_FI_DEV_POWER_USAGE"),
    ),
    thermal=ThermalDefaults(threshold_celsius=85.0, recover_celsius=75.0, sustain_seconds=30),
    fetcher=FETCHER_NAME,
)


class DcgmFetcher(GenericFetcher):
    """The generic fetcher, minus DCGM's blank sentinels: a GPU that cannot read its temperature must
    not look like it is at 2 billion degrees to the thermal controller."""

    def usable(self, metric: MetricKey, value: float) -> bool:
        return super().usable(metric, value) and value < DCGM_BLANK_FLOOR
