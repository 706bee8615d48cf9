"""Which series NuFi asks the time of the newest sample of, and how the lag check reports it."""

from __future__ import annotations

import pytest

from nufi.monitoring.snapshots.lag import LagCheck
from nufi.prom.newest import newest_sample_query

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("expression", "asked"),
    [
        ("lpu_temperature_celsius", "max(timestamp(lpu_temperature_celsius{}))"),
        (
            'max by (node) (label_replace(DCGM_FI_DEV_GPU_TEMP{job="dcgm", gpu=~"1.*"}, "a", "b", "c", "d"))',
            'max(timestamp(DCGM_FI_DEV_GPU_TEMP{job="dcgm",gpu=~"1.*"}))',
        ),
        # Values are quoted again by NuFi: a backslash or a quote stays one.
        ('x{path="C:\\\\dir \\"a\\""}', 'max(timestamp(x{path="C:\\\\dir \\"a\\""}))'),
        (
            '{__name__="RBLN_DEVICE_STATUS:UTILIZATION"}',
            'max(timestamp({__name__="RBLN_DEVICE_STATUS:UTILIZATION"}))',
        ),
        # A selector shifted in time says nothing of now; the next one does.
        ("a offset 5m + on () b", "max(timestamp(b{}))"),
        ("rate(c[5m])", "max(timestamp(c{}))"),
    ],
)
def test_the_first_plain_selector_is_asked(expression: str, asked: str) -> None:
    assert newest_sample_query(expression) == asked


@pytest.mark.parametrize("expression", ["vector(1)", "a @ 100", "sum(", "time()"])
def test_no_plain_selector_nothing_is_asked(expression: str) -> None:
    assert newest_sample_query(expression) is None


async def test_the_lag_check_reports_late_types_without_making_nufi_unready() -> None:
    late = await LagCheck(lambda: {"lpu": 0.8, "nvidia-gpu": 31.2}, 3.0).check()
    assert (late.name, late.ok, late.required) == ("metrics-freshness", False, False)
    assert "nvidia-gpu" in late.detail and "31.2 s" in late.detail and "lpu" not in late.detail
    fresh = await LagCheck(lambda: {"lpu": 0.8}, 3.0).check()
    assert fresh.ok and "0.8 s" in fresh.detail
    assert (await LagCheck(dict, 3.0).check()).ok
    unset = await LagCheck(dict, 3.0, configured=False).check()
    assert (unset.configured, unset.required) == (False, False) and unset.detail.startswith("not configured")
