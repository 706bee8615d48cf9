"""A dry run replays recorded temperatures through the hysteresis."""

from __future__ import annotations

from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.replay import replay

POLICY = ThermalPolicy(
    enabled=True, trip_celsius=85, resume_celsius=75, trip_hold_seconds=10, resume_hold_seconds=20
)


def test_trips_recoveries_and_the_time_cut() -> None:
    samples = [(float(t), 90.0 if 0 <= t < 60 else 60.0) for t in range(0, 200, 5)]
    (node,) = replay({"n1": samples}, POLICY, end=200)
    assert [(t.at, t.to) for t in node.transitions] == [(10, "hot"), (80, "normal")]
    assert node.cut_seconds == 70 and node.max_temperature == 90


def test_a_cut_still_open_at_the_end_counts_until_the_end() -> None:
    (node,) = replay({"n1": [(0.0, 90.0), (10.0, 90.0), (20.0, 90.0)]}, POLICY, end=100)
    assert [t.to for t in node.transitions] == ["hot"] and node.cut_seconds == 90


def test_nodes_that_stay_cool_have_nothing_and_keys_are_sorted() -> None:
    result = replay({"n2": [(0.0, 50.0)], "n1": [(0.0, 40.0)]}, POLICY, end=10)
    assert [(r.key, r.transitions, r.cut_seconds) for r in result] == [("n1", (), 0.0), ("n2", (), 0.0)]
