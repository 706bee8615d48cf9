"""Simulated device behaviour: repeatable, as busy as its reported load, heat that lags the load."""

from __future__ import annotations

from nufi_mock.exporter.dynamics import DeviceDynamics
from nufi_mock.exporter.hardware import GIB, HardwareSpec, ThermalModel

HW = HardwareSpec(model="test", memory_total_bytes=16 * GIB, cores=4, idle_watts=20, max_watts=200)
THERMAL = ThermalModel(ambient_celsius=35, full_load_celsius=80, time_constant_seconds=30)


BUSY = 85.0
IDLE = None


def run(seed: str, schedule: list[float | None], dt: float = 1.0) -> list[tuple[float, float, float, float]]:
    """Step a device through ``schedule``, one reported load (or None: no report) per step."""
    device = DeviceDynamics(seed, HW, THERMAL)
    out = []
    for load in schedule:
        device.step(dt, load)
        out.append((device.utilization, device.memory_used, device.temperature, device.power))
    return out


def test_same_seed_and_schedule_give_the_same_values() -> None:
    schedule = [IDLE] * 5 + [BUSY] * 20 + [IDLE] * 5
    assert run("0/n1/0", schedule) == run("0/n1/0", schedule)
    assert run("0/n1/0", schedule) != run("0/n1/1", schedule)


def test_idle_device_stays_near_zero_and_cool() -> None:
    values = run("idle", [IDLE] * 120)
    assert all(util <= 2.0 for util, *_ in values)
    assert all(mem < 0.01 * 16 * GIB for _, mem, _, _ in values)
    assert all(34.0 < temp < 38.0 for *_, temp, _ in values)


def test_loaded_device_works_and_uses_memory_in_step_with_load() -> None:
    values = run("busy", [BUSY] * 30)
    util, mem, _, power = values[-1]
    assert 55.0 <= util <= 100.0
    assert 0.35 * 16 * GIB < mem < 0.86 * 16 * GIB
    assert power > 100.0


def test_temperature_lags_load_then_settles_near_the_full_load_target() -> None:
    values = run("heat", [BUSY] * 600)
    temps = [temp for *_, temp, _ in values]
    utils = [util for util, *_ in values]
    # Inertia: after 5 s the chip is far from its settled temperature.
    assert temps[4] < 45.0
    settled = THERMAL.target(sum(utils[-60:]) / 60)
    assert abs(sum(temps[-60:]) / 60 - settled) < 1.5
    assert 65.0 < temps[-1] < 82.0


def test_full_load_target_is_80_and_idle_target_ambient() -> None:
    assert THERMAL.target(100) == 80.0
    assert THERMAL.target(0) == 35.0
    assert THERMAL.target(250) == 80.0


def test_cooling_after_the_job_ends_is_gradual() -> None:
    values = run("cool", [BUSY] * 300 + [IDLE] * 60)
    hot = values[299][2]
    after_ten = values[309][2]
    assert values[305][0] < 5.0  # utilisation drops within seconds
    assert 35.0 + 0.5 * (hot - 35.0) < after_ten < hot
