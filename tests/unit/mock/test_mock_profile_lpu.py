"""The lpu profile: the seed's four metrics and the device health, pod labels only on allocated devices."""

from __future__ import annotations

import pytest

from nufi_mock.exporter.collector import rename_labels
from nufi_mock.exporter.hardware import GIB
from nufi_mock.exporter.profiles import Naming, make_profile

from .profile_helpers import OWNER, exposition, named, reading, scrape

GAUGES = {
    "lpu_utilization_percent",
    "lpu_memory_used_bytes",
    "lpu_memory_total_bytes",
    "lpu_temperature_celsius",
    "lpu_health",
}


def test_exactly_these_gauges_with_node_and_device_labels() -> None:
    series = scrape(make_profile("lpu"), [reading(0, owner=OWNER), reading(1)])
    assert {name for name, _, _ in series} == GAUGES
    text = exposition(make_profile("lpu"), [reading(0)])
    assert all(f"# TYPE {name} gauge" in text for name in GAUGES)
    for name in GAUGES:
        by_device = {labels["device"]: labels for _, labels, _ in named(series, name)}
        assert by_device["lpu0"] == {
            "node": "node-a",
            "device": "lpu0",
            "pod": "infer-0",
            "namespace": "team-a",
        }
        assert by_device["lpu1"] == {"node": "node-a", "device": "lpu1"}


def test_values_are_in_the_units_the_names_promise() -> None:
    series = {name: value for name, _, value in scrape(make_profile("lpu"), [reading(0)])}
    assert series["lpu_utilization_percent"] == 50.0
    assert series["lpu_memory_used_bytes"] == 3 * GIB
    assert series["lpu_memory_total_bytes"] == 16 * GIB
    assert series["lpu_temperature_celsius"] == 61.4
    assert series["lpu_health"] == 1.0


def test_health_is_one_per_device_zero_only_where_unhealthy() -> None:
    series = named(scrape(make_profile("lpu"), [reading(0, healthy=False), reading(1)]), "lpu_health")
    assert {labels["device"]: value for _, labels, value in series} == {"lpu0": 0.0, "lpu1": 1.0}


def test_label_names_can_be_renamed() -> None:
    [metric, *_] = make_profile("lpu").render([reading(0, owner=OWNER)])
    renamed = rename_labels(metric, {"node": "kubernetes_node", "pod": "workload_pod"})
    assert set(renamed.samples[0].labels) == {"kubernetes_node", "device", "workload_pod", "namespace"}


def test_lpu_offers_only_current_naming() -> None:
    with pytest.raises(ValueError, match="offers naming current"):
        make_profile("lpu", Naming.LEGACY)
