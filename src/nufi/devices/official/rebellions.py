"""Rebellions ATOM: the `rebellions.ai/ATOM` device plugin and rbln-metrics-exporter.

The exporter renamed its metrics from `RBLN_DEVICE_STATUS:*` to `rbln_npu_*`, and which name a given
version emits by default varies; `new or legacy` takes the new series where present and the legacy
one otherwise. The device is named in the `name` label (`rbln0`...). Memory is in bytes (exporters
since v0.2.1; earlier ones reported GiB: change the unit for those).
"""

from __future__ import annotations

from nufi.devices.spec import GENERIC_FETCHER, DeviceType, Labels, Memory, Metrics, ThermalDefaults
from nufi.devices.units import MemoryUnit


def _new_or_legacy(new: str, legacy: str) -> str:
    return f"{new} or RBLN_DEVICE_STATUS:{legacy}"


PRESET = DeviceType(
    id="rebellions-atom",
    name="Rebellions ATOM",
    vendor="Rebellions",
    kind="official",
    resource_key="rebellions.ai/ATOM",
    labels=Labels(node="hostname", device="name", pod="pod", namespace="namespace"),
    metrics=Metrics(
        utilization=_new_or_legacy("rbln_npu_utilization", "UTILIZATION"),
        memory=Memory(
            mode="used_total",
            used=_new_or_legacy("rbln_npu_memory_used", "DRAM_USED"),
            total=_new_or_legacy("rbln_npu_memory_total", "DRAM_TOTAL"),
            unit=MemoryUnit.BYTES,
        ),
        temperature=_new_or_legacy("rbln_npu_temperature", "TEMPERATURE"),
        power=_new_or_legacy("rbln_npu_power", "CARD_POWER"),
    ),
    thermal=ThermalDefaults(threshold_celsius=85.0, recover_celsius=75.0, sustain_seconds=30),
    fetcher=GENERIC_FETCHER,
)
