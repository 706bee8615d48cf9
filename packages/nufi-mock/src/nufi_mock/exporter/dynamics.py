"""Believable, repeatable device behaviour: as busy as its workloads report, idle otherwise, heat that
lags load."""

from __future__ import annotations

import math
import random

from .hardware import HardwareSpec, ThermalModel

# Seconds for utilisation and memory to settle after a device starts or stops working.
_UTILIZATION_RAMP_SECONDS = 2.0
_MEMORY_RAMP_SECONDS = 3.0
_IDLE_MEMORY_SHARE = 0.002


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


class DeviceDynamics:
    """The state of one simulated device. The same seed and the same sequence of ``step`` calls give
    the same values, whatever the wall clock does.

    A device works only as hard as a workload says it does (``load``): being held by a pod is not
    work, so a device that a pod holds but nobody reports working idles like a free one. The exporter
    cannot see inside a pod; a guessed load would show an idle lab as a hot device."""

    def __init__(self, seed: str, hardware: HardwareSpec, thermal: ThermalModel) -> None:
        self._rng = random.Random(seed)
        self.hardware = hardware
        self.thermal = thermal
        self.utilization = 0.0
        self.core_utilization = [0.0] * hardware.cores
        self.memory_used = float(hardware.memory_total_bytes * _IDLE_MEMORY_SHARE)
        self.temperature = thermal.ambient_celsius + self._rng.uniform(0.0, 1.5)
        self.power = hardware.idle_watts

    def step(self, dt: float, load: float | None = None) -> None:
        """Advance by ``dt`` seconds; ``load`` is the utilisation the device's workloads report (None:
        nobody reports working it, so it idles, held by a pod or not)."""
        if dt <= 0:
            return
        rng = self._rng
        # A workload that reports its load keeps its model in memory even while no request comes.
        working = load is not None
        if load is not None and load > 0:
            target = _clamp(load + rng.gauss(0.0, 2.0), 0.0, 100.0)
        else:
            target = _clamp(abs(rng.gauss(0.0, 0.4)), 0.0, 2.0)
        self.utilization += (target - self.utilization) * (1.0 - math.exp(-dt / _UTILIZATION_RAMP_SECONDS))
        spread = 3.0 if working else 0.2
        self.core_utilization = [
            _clamp(self.utilization + rng.gauss(0.0, spread), 0.0, 100.0) for _ in self.core_utilization
        ]

        usable = self.hardware.memory_total_bytes - self.hardware.memory_reserved_bytes
        share = 0.35 + 0.5 * self.utilization / 100.0 if working else _IDLE_MEMORY_SHARE
        self.memory_used += (usable * share - self.memory_used) * (1.0 - math.exp(-dt / _MEMORY_RAMP_SECONDS))
        self.memory_used = _clamp(self.memory_used, 0.0, float(usable))

        heat = self.thermal.target(self.utilization)
        relax = 1.0 - math.exp(-dt / self.thermal.time_constant_seconds)
        self.temperature += (heat - self.temperature) * relax + rng.gauss(0.0, 0.1)

        hw = self.hardware
        noise = rng.gauss(0.0, 1.5 if working else 0.3)
        self.power = max(
            0.0, hw.idle_watts + (hw.max_watts - hw.idle_watts) * self.utilization / 100.0 + noise
        )
