"""The Rebellions preset's unit recognition (interop-facts §4.3): each old unit's plausible range is
normalised into the physical range, current units pass unchanged, and the check names the conversion."""

from __future__ import annotations

import asyncio
from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from nufi.devices.metric_checks import CONVERTED_LABEL, check_metrics
from nufi.devices.official.rebellions import GIBIBYTES, MICROWATTS, MILLI_CELSIUS, PRESET, SCALES
from nufi.models.promql import MAX_EXPRESSION_CHARS, MAX_EXPRESSION_DEPTH, nesting_depth
from nufi.prom import QueryResult, Sample

GIB = 2**30
CELSIUS = st.floats(min_value=-40.0, max_value=150.0)
WATTS = st.floats(min_value=0.0, max_value=1500.0)


@given(CELSIUS)
def test_celsius_pass_unchanged(celsius: float) -> None:
    assert MILLI_CELSIUS.normalised(celsius) == celsius


@given(st.floats(min_value=0.25, max_value=150.0))
def test_milli_celsius_are_converted_into_celsius(celsius: float) -> None:
    assert MILLI_CELSIUS.applies(celsius * 1000)
    assert abs(MILLI_CELSIUS.normalised(round(celsius * 1000)) - celsius) <= 0.001


@given(WATTS)
def test_watts_pass_unchanged(watts: float) -> None:
    assert MICROWATTS.normalised(watts) == watts


@given(st.floats(min_value=0.02, max_value=1500.0))
def test_microwatts_are_converted_into_watts(watts: float) -> None:
    assert MICROWATTS.applies(watts * 1e6)
    assert abs(MICROWATTS.normalised(round(watts * 1e6)) - watts) <= 1e-6


@given(st.integers(min_value=1, max_value=1023 * 1024).map(lambda kib: kib / 1024))
def test_gibibytes_are_converted_into_bytes(gib: float) -> None:
    assert GIBIBYTES.normalised(gib) == gib * GIB


@given(st.integers(min_value=GIB // 4, max_value=2**42))
def test_bytes_pass_unchanged(total: int) -> None:
    assert GIBIBYTES.normalised(total) == total


def test_the_expressions_use_the_model_thresholds_within_bounds() -> None:
    queries = PRESET.metrics.queries()
    for metric, scale in SCALES.items():
        query = queries[metric]
        threshold = f"{scale.threshold:g}"
        assert f"> {threshold}" in query or f"< {threshold}" in query
        assert f'"{CONVERTED_LABEL}", "{scale.conversion}"' in query
    assert f"< {GIBIBYTES.threshold:g}" in queries["memory_used"]
    for query in queries.values():
        assert len(query) <= MAX_EXPRESSION_CHARS and nesting_depth(query) <= MAX_EXPRESSION_DEPTH
        assert "rbln_npu_" in query and "RBLN_DEVICE_STATUS:" in query


class _Prometheus:
    """Answers the temperature query with converted and plain series, everything else with nothing."""

    def __init__(self, temperature: str) -> None:
        self.temperature = temperature

    async def query(self, promql: str, time: datetime | float | None = None) -> QueryResult:
        if promql != self.temperature:
            return QueryResult("vector")
        samples = [
            Sample({"hostname": "n", "name": f"rbln{i}", CONVERTED_LABEL: "m°C→°C"}, 0.0, 54.0)
            for i in range(3)
        ]
        samples += [Sample({"hostname": "m", "name": f"rbln{i}"}, 0.0, 50.0) for i in range(5)]
        return QueryResult("vector", tuple(samples))


def test_the_check_names_the_conversion() -> None:
    assert PRESET.metrics.temperature is not None
    prometheus = _Prometheus(PRESET.metrics.temperature)
    checked = asyncio.run(check_metrics(PRESET.labels, PRESET.metrics, prometheus))
    warnings = checked.results["temperature"].warnings
    assert any(w.startswith("3 of 8 series were converted from m°C to °C") for w in warnings), warnings
    assert not any("look implausible" in w for w in warnings)
    assert not any("were converted" in w for w in checked.results["power"].warnings)


def test_health_is_one_where_the_exporter_says_zero() -> None:
    assert PRESET.metrics.health == "(rbln_npu_health or RBLN_DEVICE_STATUS:HEALTH) == bool 0"
