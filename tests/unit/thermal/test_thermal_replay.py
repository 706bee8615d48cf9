"""Dry runs: trips and recoveries at the right times, and the time traffic would have been cut."""

from __future__ import annotations

from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.replay import ReplayTransition, replay

POLICY = ThermalPolicy(enabled=True, trip_hold_seconds=10, resume_hold_seconds=20)


def test_trip_and_recovery_times_and_cut_seconds() -> None:
    series = {"n1": [(20, 90.0), (0, 70.0), (10, 90.0), (30, 70.0), (40, 70.0), (50, 70.0), (60, 60.0)]}
    (node,) = replay(series, POLICY, end=100)
    assert node.transitions == (ReplayTransition(20, "hot", 90.0), ReplayTransition(50, "normal", 70.0))
    assert node.cut_seconds == 30 and node.max_temperature == 90.0


def test_open_interval_counts_to_end_and_keys_sorted() -> None:
    got = replay({"n2": [(0, 60.0)], "n1": [(0, 90.0), (10, 90.0), (15, None)]}, POLICY, end=40)
    assert [n.key for n in got] == ["n1", "n2"]
    assert got[0].cut_seconds == 30 and got[1].cut_seconds == 0 and got[1].transitions == ()


def test_no_samples() -> None:
    (node,) = replay({"n1": []}, POLICY, end=10)
    assert node.transitions == () and node.cut_seconds == 0 and node.max_temperature is None
