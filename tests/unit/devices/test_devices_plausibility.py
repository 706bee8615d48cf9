"""The physical ranges every device reading is held to, whatever its type."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi.devices.plausibility import (
    MAX_TEMPERATURE_CELSIUS,
    MAX_UTILIZATION_PERCENT,
    MIN_MEMORY_BYTES,
    MIN_POWER_WATTS,
    MIN_TEMPERATURE_CELSIUS,
    MIN_UTILIZATION_PERCENT,
    implausible,
    plausible_reading,
)
from nufi.devices.readings import DeviceReading
from nufi.devices.spec import MetricKey

MEMORY: tuple[MetricKey, ...] = ("memory_used", "memory_total", "memory_free")


def between(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False)


def below(limit: float) -> st.SearchStrategy[float]:
    return st.floats(max_value=limit, exclude_max=True, allow_nan=False)


def above(limit: float) -> st.SearchStrategy[float]:
    # Infinities are included: they are flagged too.
    return st.floats(min_value=limit, exclude_min=True, allow_nan=False)


@given(between(MIN_UTILIZATION_PERCENT, MAX_UTILIZATION_PERCENT))
def test_any_utilization_from_0_to_100_passes(value: float) -> None:
    assert implausible("utilization", value) is None


@given(below(MIN_UTILIZATION_PERCENT) | above(MAX_UTILIZATION_PERCENT))
def test_any_utilization_outside_0_to_100_is_flagged(value: float) -> None:
    reason = implausible("utilization", value)
    assert reason is not None and reason.code in ("plausibility.utilization", "plausibility.not_finite")
    assert reason.text("en").startswith("utilization ") and reason.text("ko").startswith("사용률 ")


@given(between(MIN_TEMPERATURE_CELSIUS, MAX_TEMPERATURE_CELSIUS))
def test_any_temperature_from_minus_40_to_150_passes(value: float) -> None:
    assert implausible("temperature", value) is None


@given(below(MIN_TEMPERATURE_CELSIUS) | above(MAX_TEMPERATURE_CELSIUS))
def test_any_temperature_outside_minus_40_to_150_is_flagged(value: float) -> None:
    reason = implausible("temperature", value)
    assert reason is not None and reason.code in ("plausibility.temperature", "plausibility.not_finite")
    assert reason.text("en").startswith("temperature ") and reason.text("ko").startswith("온도 ")


@given(st.sampled_from(MEMORY), between(MIN_MEMORY_BYTES, 1e300))
def test_any_memory_from_zero_up_passes(metric: MetricKey, value: float) -> None:
    assert implausible(metric, value) is None


@given(st.sampled_from(MEMORY), below(MIN_MEMORY_BYTES))
def test_negative_memory_is_flagged(metric: MetricKey, value: float) -> None:
    assert implausible(metric, value) is not None


@given(between(MIN_POWER_WATTS, 1e300))
def test_any_power_from_zero_up_passes(value: float) -> None:
    assert implausible("power", value) is None


@given(below(MIN_POWER_WATTS))
def test_negative_power_is_flagged(value: float) -> None:
    assert implausible("power", value) is not None


@given(st.floats(allow_nan=False).filter(lambda value: value not in (0.0, 1.0)))
def test_health_is_1_or_0_and_nothing_else(value: float) -> None:
    assert implausible("health", 1.0) is None and implausible("health", 0.0) is None
    assert implausible("health", value) is not None


@given(st.sampled_from(("utilization", "temperature", "power", "health", *MEMORY)))
def test_not_a_number_is_never_plausible(metric: MetricKey) -> None:
    for value in (float("nan"), float("inf"), float("-inf")):
        assert implausible(metric, value) is not None


@given(
    used=between(0, 1e15),
    total=between(0, 1e15),
)
def test_memory_used_beyond_the_total_empties_both(used: float, total: float) -> None:
    reading = DeviceReading("n1", "d0", memory_used_bytes=used, memory_total_bytes=total)
    checked, found = plausible_reading(reading)
    if used <= total:
        assert (checked, found) == (reading, ())
    else:
        assert checked.memory_used_bytes is None and checked.memory_total_bytes is None
        (problem,) = found
        assert problem.metric == "memory_used" and problem.value == used
        assert "more than the total" in problem.message


def test_each_implausible_value_is_emptied_and_named_with_its_device() -> None:
    reading = DeviceReading(
        "gpu-1",
        "3",
        utilization_percent=42.0,
        memory_used_bytes=-1.0,
        memory_total_bytes=8.0,
        temperature_celsius=54000.0,
        power_watts=-2.5,
        health=7.0,
        pod="trainer",
    )
    checked, found = plausible_reading(reading)
    assert checked == DeviceReading(
        "gpu-1", "3", utilization_percent=42.0, memory_total_bytes=8.0, pod="trainer"
    )
    assert [(p.metric, p.value) for p in found] == [
        ("memory_used", -1.0),
        ("temperature", 54000.0),
        ("power", -2.5),
        ("health", 7.0),
    ]
    assert found[1].message == (
        "device 3 on node gpu-1: temperature 54000 °C is outside -40 to 150 °C; it is shown as not reported"
    )


def test_a_plausible_reading_comes_back_as_it_was() -> None:
    reading = DeviceReading("n", "d", 100.0, 16.0, 16.0, -40.0, 0.0, health=1.0)
    assert plausible_reading(reading) == (reading, ())
