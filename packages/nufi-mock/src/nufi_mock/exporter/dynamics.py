"""Believable, repeatable device behaviour: busy when allocated, idle otherwise, heat that lags load."""

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
    the same values, whatever the wall clock does."""

    def __init__(self, seed: str, hardware: HardwareSpec, thermal: ThermalModel) -> None:
        self._rng = random.Random(seed)
        self.hardware = hardware
        self.thermal = thermal
        self._busy = False
        self._level = self._new_level()
        self.utilization = 0.0
        self.core_utilization = [0.0] * hardware.cores
        self.memory_used = float(hardware.memory_total_bytes * _IDLE_MEMORY_SHARE)
        self.temperature = thermal.ambient_celsius + self._rng.uniform(0.0, 1.5)
        self.power = hardware.idle_watts

    def _new_level(self) -> float:
        # Each job keeps the device at its own typical load.
        return self._rng.uniform(70.0, 95.0)

    def step(self, dt: float, busy: bool, load: float | None = None) -> None:
        """Advance by ``dt`` seconds; ``busy`` says whether a pod holds the device, ``load`` is the
        utilisation its workload reports (None: no report, a held device works at its job's level)."""
        if dt <= 0:
            return
        if busy and not self._busy:
            self._level = self._new_level()
        self._busy = busy
        rng = self._rng
        if load is not None:
            # A workload that reports its load is working the device: it keeps its model in memory
            # even while no request comes.
            busy = True
            if load > 0:
                target = _clamp(load + rng.gauss(0.0, 2.0), 0.0, 100.0)
            else:
                target = _clamp(abs(rng.gauss(0.0, 0.4)), 0.0, 2.0)
        elif busy:
            target = _clamp(self._level + rng.gauss(0.0, 4.0), 0.0, 100.0)
        else:
            target = _clamp(abs(rng.gauss(0.0, 0.4)), 0.0, 2.0)
        self.utilization += (target - self.utilization) * (1.0 - math.exp(-dt / _UTILIZATION_RAMP_SECONDS))
        spread = 3.0 if busy else 0.2
        self.core_utilization = [
            _clamp(self.utilization + rng.gauss(0.0, spread), 0.0, 100.0) for _ in self.core_utilization
        ]

        usable = self.hardware.memory_total_bytes - self.hardware.memory_reserved_bytes
        share = 0.35 + 0.5 * self.utilization / 100.0 if busy else _IDLE_MEMORY_SHARE
        self.memory_used += (usable * share - self.memory_used) * (1.0 - math.exp(-dt / _MEMORY_RAMP_SECONDS))
        self.memory_used = _clamp(self.memory_used, 0.0, float(usable))

        heat = self.thermal.target(self.utilization)
        relax = 1.0 - math.exp(-dt / self.thermal.time_constant_seconds)
        self.temperature += (heat - self.temperature) * relax + rng.gauss(0.0, 0.1)

        hw = self.hardware
        noise = rng.gauss(0.0, 1.5 if busy else 0.3)
        self.power = max(
            0.0, hw.idle_watts + (hw.max_watts - hw.idle_watts) * self.utilization / 100.0 + noise
        )
