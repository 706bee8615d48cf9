"""Rebellions ATOM: the `rebellions.ai/ATOM` device plugin and rbln-metrics-exporter.

The exporter renamed its metrics from `RBLN_DEVICE_STATUS:*` to `rbln_npu_*`, and which name a given
version emits by default varies; `new or legacy` takes the new series where present and the legacy
one otherwise. The device is named in the `name` label (`rbln0`...).

Units drifted between versions: before v0.2.1 DRAM is in GiB (`15.71875`), and exporters older than
the January 2026 fix report temperature in m°C (about 54000) and power in µW (about 4.39e7) on newer
drivers. No real device reads those magnitudes in the documented unit, so each expression recognises
the scale by range (`SCALES`) and normalises it, with exclusive filters so that every series appears
once; a converted series carries the label `nufi_converted` naming the conversion (`m°C→°C`), which
the wizard's metric check reports. Used memory is converted with its device's total, as one exporter
reports both in one unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nufi.devices.metric_checks import CONVERTED_LABEL
from nufi.devices.spec import (
    GENERIC_FETCHER,
    DeviceType,
    Labels,
    Memory,
    MetricKey,
    Metrics,
    ThermalDefaults,
)
from nufi.devices.units import MemoryUnit
from nufi.prom.promql import quote_label_value

NODE_LABEL, DEVICE_LABEL = "hostname", "name"


@dataclass(frozen=True)
class Scale:
    """An old unit recognised by range: values `above` (or `below`) `threshold` are in `unit`, and
    multiplied by `factor` they are in `current`."""

    side: Literal["above", "below"]
    threshold: float
    factor: float
    unit: str
    current: str

    def applies(self, value: float) -> bool:
        return value > self.threshold if self.side == "above" else value < self.threshold

    def normalised(self, value: float) -> float:
        """The value in the current unit, as the preset's expression computes it."""
        return value * self.factor if self.applies(value) else value

    @property
    def conversion(self) -> str:
        return f"{self.unit}→{self.current}"


# No chip runs at 200 °C, draws 10 kW, or has less than 1 KiB of DRAM.
MILLI_CELSIUS = Scale("above", 200.0, 1e-3, "m°C", "°C")
MICROWATTS = Scale("above", 10_000.0, 1e-6, "µW", "W")
GIBIBYTES = Scale("below", 1024.0, float(2**30), "GiB", "bytes")
SCALES: dict[MetricKey, Scale] = {
    "temperature": MILLI_CELSIUS,
    "power": MICROWATTS,
    "memory_total": GIBIBYTES,
}

_OPERATORS = {("above", True): ">", ("above", False): "<=", ("below", True): "<", ("below", False): ">="}


def _new_or_legacy(new: str, legacy: str) -> str:
    return f"{new} or RBLN_DEVICE_STATUS:{legacy}"


def _comparison(scale: Scale, *, matches: bool) -> str:
    """The filter keeping the values in `scale`'s old unit (`matches`), or the others."""
    return f"{_OPERATORS[scale.side, matches]} {scale.threshold:g}"


def _factor(scale: Scale) -> str:
    return f"* {scale.factor:.0f}" if scale.factor >= 1 else f"/ {1 / scale.factor:.0f}"


def _marked(expression: str, scale: Scale) -> str:
    return (
        f"label_replace({expression}, {quote_label_value(CONVERTED_LABEL)}, "
        f'{quote_label_value(scale.conversion)}, "", "")'
    )


def normalised(series: str, scale: Scale) -> str:
    """`series` in the current unit: the values in `scale`'s old unit converted and marked, the others
    as they are; the two filters are exclusive, so each series appears once."""
    series = f"({series})"
    converted = _marked(f"({series} {_comparison(scale, matches=True)}) {_factor(scale)}", scale)
    return f"{converted} or ({series} {_comparison(scale, matches=False)})"


def _memory_used(used: str, total: str) -> str:
    """Used memory, converted from GiB exactly where its device's total is in GiB."""
    used, on = f"({used})", f"on ({NODE_LABEL}, {DEVICE_LABEL})"
    in_gib = f"(({total}) {_comparison(GIBIBYTES, matches=True)})"
    converted = _marked(f"({used} and {on} {in_gib}) {_factor(GIBIBYTES)}", GIBIBYTES)
    return f"{converted} or ({used} unless {on} {in_gib})"


_TOTAL = _new_or_legacy("rbln_npu_memory_total", "DRAM_TOTAL")

PRESET = DeviceType(
    id="rebellions-atom",
    name="Rebellions ATOM",
    vendor="Rebellions",
    kind="official",
    resource_key="rebellions.ai/ATOM",
    labels=Labels(node=NODE_LABEL, device=DEVICE_LABEL, pod="pod", namespace="namespace"),
    metrics=Metrics(
        utilization=_new_or_legacy("rbln_npu_utilization", "UTILIZATION"),
        memory=Memory(
            mode="used_total",
            used=_memory_used(_new_or_legacy("rbln_npu_memory_used", "DRAM_USED"), _TOTAL),
            total=normalised(_TOTAL, GIBIBYTES),
            unit=MemoryUnit.BYTES,
        ),
        temperature=normalised(_new_or_legacy("rbln_npu_temperature", "TEMPERATURE"), MILLI_CELSIUS),
        power=normalised(_new_or_legacy("rbln_npu_power", "CARD_POWER"), MICROWATTS),
        # The exporter's 0 is healthy (active) and 1 inactive.
        health=f"({_new_or_legacy('rbln_npu_health', 'HEALTH')}) == bool 0",
    ),
    thermal=ThermalDefaults(threshold_celsius=85.0, recover_celsius=75.0, sustain_seconds=30),
    fetcher=GENERIC_FETCHER,
)
