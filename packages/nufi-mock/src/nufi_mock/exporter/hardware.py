"""The physical character of a simulated device model and the thermal law it follows."""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class HardwareSpec:
    model: str
    memory_total_bytes: int
    cores: int = 1
    idle_watts: float = 20.0
    max_watts: float = 150.0
    memory_reserved_bytes: int = 0
    """Memory the driver keeps for itself; DCGM reports it as FB_RESERVED."""


@dataclass(frozen=True)
class ThermalModel:
    """Temperature relaxes towards ambient + (full load - ambient) x utilisation with ``time_constant``."""

    ambient_celsius: float = 35.0
    full_load_celsius: float = 80.0
    time_constant_seconds: float = 30.0

    def target(self, utilization_percent: float) -> float:
        share = min(max(utilization_percent, 0.0), 100.0) / 100.0
        return self.ambient_celsius + (self.full_load_celsius - self.ambient_celsius) * share
