"""Furiosa and RBLN profiles with quirks: what real output shows (interop-facts §3.3, §4.3)."""

from __future__ import annotations

import pytest

from nufi_mock.exporter.hardware import GIB
from nufi_mock.exporter.profiles import Naming, make_profile

from .profile_helpers import named, reading, scrape


def furiosa_series() -> list[tuple[str, dict[str, str], float]]:
    return scrape(make_profile("furiosa"), [reading(0, cores=8), reading(1, cores=8)])


def test_furiosa_quirks_partition_one_card_in_two_with_identical_values() -> None:
    profile = make_profile("furiosa", quirks=True)
    readings = [reading(0, cores=8), reading(1, cores=8), reading(0, cores=8, node="node-b")]
    series = scrape(profile, readings)
    for name in ("furiosa_npu_alive", "furiosa_npu_dram_total", "furiosa_npu_dram_usage"):
        npu0 = [(labels, v) for _, labels, v in named(series, name) if labels["device"] == "npu0"]
        on_a = sorted(
            (labels["core"], labels.get("pod")) for labels, _ in npu0 if labels["hostname"] == "node-a"
        )
        assert on_a == [("0-3", "rngd-part-0"), ("0-7", None), ("4-7", "rngd-part-1")]
        assert len({v for labels, v in npu0 if labels["hostname"] == "node-a"}) == 1  # identical values
        # Only one card is partitioned.
        assert [labels["core"] for labels, _ in npu0 if labels["hostname"] == "node-b"] == ["0-7"]
    peak = [
        labels for _, labels, _ in named(series, "furiosa_npu_hw_temperature") if labels["label"] == "peak"
    ]
    assert len(peak) == 3 + 2  # node-a npu0 whole + 2 partitions, node-a npu1, node-b npu0
    cores = {
        labels["core"]: labels.get("pod")
        for _, labels, _ in named(series, "furiosa_npu_core_utilization")
        if labels["hostname"] == "node-a" and labels["device"] == "npu0"
    }
    assert cores == {str(c): "rngd-part-0" if c < 4 else "rngd-part-1" for c in range(8)}


def test_furiosa_partitions_only_with_quirks_and_in_legacy_labels_too() -> None:
    plain = named(furiosa_series(), "furiosa_npu_dram_total")
    assert len(plain) == 2
    legacy = scrape(make_profile("furiosa", Naming.LEGACY, quirks=True), [reading(0, cores=8)])
    pods = {labels.get("kubernetes_pod_name") for _, labels, _ in named(legacy, "furiosa_npu_dram_total")}
    assert pods == {None, "rngd-part-0", "rngd-part-1"}


def test_rbln_quirks_give_legacy_names_their_old_units() -> None:
    value = {name: v for name, _, v in scrape(make_profile("rbln", Naming.BOTH, quirks=True), [reading(0)])}
    assert value["RBLN_DEVICE_STATUS:DRAM_TOTAL"] == 16.0  # GiB
    assert value["RBLN_DEVICE_STATUS:DRAM_USED"] == 3.0
    assert value["RBLN_DEVICE_STATUS:TEMPERATURE"] == 61400  # m°C
    assert value["RBLN_DEVICE_STATUS:CARD_POWER"] == 123450000  # µW
    assert value["RBLN_DEVICE_STATUS:UTILIZATION"] == 50.0
    assert value["RBLN_DEVICE_STATUS:HEALTH"] == 0
    # The new names keep the documented units.
    assert value["rbln_npu_memory_total"] == 16 * GIB
    assert value["rbln_npu_temperature"] == 61.4


def test_rbln_quirks_overrides_take_the_old_units() -> None:
    targets = make_profile("rbln", Naming.LEGACY, quirks=True).override_targets()
    assert targets["RBLN_DEVICE_STATUS:DRAM_TOTAL"].factor == GIB
    assert targets["RBLN_DEVICE_STATUS:TEMPERATURE"].factor == pytest.approx(1e-3)
    assert targets["RBLN_DEVICE_STATUS:CARD_POWER"].factor == pytest.approx(1e-6)
    assert make_profile("rbln", Naming.LEGACY).override_targets()["RBLN_DEVICE_STATUS:DRAM_TOTAL"].factor == 1
