"""A dry run replays each recorded condition through the hysteresis, then the circuit breaker over the
nodes it affects."""

from __future__ import annotations

from nufi.thermal.policy import Breaker, CustomCondition, ThermalPolicy, UnhealthyCondition
from nufi.thermal.protection.conditions import Condition
from nufi.thermal.protection.replay import Recording, common_hold, replay, replay_step

POLICY = ThermalPolicy(
    enabled=True, trip_celsius=85, resume_celsius=75, trip_hold_seconds=10, resume_hold_seconds=20
)
# Every node may be cut: the breaker has nothing to say.
UNBOUNDED = POLICY.model_copy(update={"breaker": Breaker(max_node_share=1.0)})


def _hot(
    between: tuple[float, float], hot: float = 90.0, cool: float = 60.0
) -> list[tuple[float, float | None]]:
    return [(float(t), hot if between[0] <= t < between[1] else cool) for t in range(0, 200, 5)]


def test_trips_recoveries_and_the_time_cut() -> None:
    (node,) = replay({"temperature": {"n1": _hot((0, 60))}}, POLICY, end=200).nodes
    assert [(t.at, t.to, t.condition) for t in node.transitions] == [
        (10, "hot", "temperature"),
        (80, "normal", "temperature"),
    ]
    assert node.cut_seconds == 70 and node.max_temperature == 90 and node.held_seconds == 0


def test_a_cut_still_open_at_the_end_counts_until_the_end() -> None:
    samples: list[tuple[float, float | None]] = [(0.0, 90.0), (10.0, 90.0), (20.0, 90.0)]
    ran = replay({"temperature": {"n1": samples}}, POLICY, end=100)
    assert [t.to for t in ran.nodes[0].transitions] == ["hot"] and ran.nodes[0].cut_seconds == 90
    assert [(e.start, e.end, e.peak_celsius) for e in ran.episodes] == [(10, None, 90)]


def test_nodes_that_stay_cool_have_nothing_and_keys_are_sorted() -> None:
    ran = replay({"temperature": {"n2": [(0.0, 50.0)], "n1": [(0.0, 40.0)]}}, POLICY, end=10)
    assert [(r.key, r.transitions, r.cut_seconds) for r in ran.nodes] == [("n1", (), 0.0), ("n2", (), 0.0)]
    assert ran.breaker == ()


def test_health_trips_on_unhealthy_readings_and_zero_is_a_reading() -> None:
    """1 is unhealthy; 0 (healthy) resumes after the resume hold; unlike temperature, 0 is usable."""
    policy = POLICY.model_copy(
        update={"unhealthy": UnhealthyCondition(enabled=True, trip_hold_seconds=0, resume_hold_seconds=10)}
    )
    unhealthy = [(float(t), 1.0 if 20 <= t < 40 else 0.0) for t in range(0, 100, 5)]
    cool = [(float(t), 50.0) for t in range(0, 100, 5)]
    ran = replay({"temperature": {"n1": cool}, "unhealthy": {"n1": unhealthy}}, policy, end=100)
    (node,) = ran.nodes
    assert [(t.at, t.to, t.condition, t.temperature) for t in node.transitions] == [
        (20, "unhealthy", "unhealthy", None),
        (50, "normal", "unhealthy", None),
    ]
    assert node.cut_seconds == 30 and node.max_temperature == 50
    (episode,) = ran.episodes
    assert (episode.condition, episode.peak, episode.peak_celsius) == ("unhealthy", 1.0, None)


def test_overlapping_conditions_on_one_node_count_its_cut_once() -> None:
    policy = UNBOUNDED.model_copy(
        update={
            "custom": CustomCondition(
                enabled=True,
                name="ecc",
                expression="ecc_errors",
                trip_at=5,
                resume_at=0,
                trip_hold_seconds=0,
                resume_hold_seconds=0,
            )
        }
    )
    errors = [(float(t), 9.0 if 30 <= t < 100 else 0.0) for t in range(0, 200, 5)]
    ran = replay({"temperature": {"n1": _hot((0, 60))}, "custom": {"n1": errors}}, policy, end=200)
    (node,) = ran.nodes
    # Hot from 10 to 80, the own condition from 30 to 100: cut from 10 to 100.
    assert node.cut_seconds == 90
    assert [(e.condition, e.start, e.end, e.peak) for e in ran.episodes] == [
        ("temperature", 10, 80, 90.0),
        ("custom", 30, 100, 9.0),
    ]
    assert [t.to for t in node.transitions] == ["hot", "tripped", "normal", "normal"]


def test_the_breaker_holds_the_later_node_back_and_lets_it_go_once_the_first_recovers() -> None:
    """Two of two nodes hot with a share of half: the first to trip is cut, the second keeps its traffic
    until the first recovers, then is cut as usual; no reset needed."""
    policy = POLICY.model_copy(update={"breaker": Breaker(max_node_share=0.5)})
    ran = replay({"temperature": {"n1": _hot((0, 60)), "n2": _hot((20, 150))}}, policy, end=200)
    first, second = ran.nodes
    # n1 hot from 10 to 80; n2 from 30 to 170, held back from 30 until n1 is restored at 80.
    assert (first.cut_seconds, first.held_seconds) == (70, 0)
    assert (second.cut_seconds, second.held_seconds) == (90, 50)
    (held,) = ran.breaker
    assert (held.start, held.end, held.waiting, held.allowed, held.total_nodes) == (30, 80, ("n2",), 1, 2)
    assert [e.held_seconds for e in ran.episodes] == [0, 50]


def test_the_breaker_counts_the_nodes_it_is_given() -> None:
    """Half of two nodes is one, so the later hot node waits; half of four is two, so both are cut."""
    policy = POLICY.model_copy(update={"breaker": Breaker(max_node_share=0.5)})
    both_hot: dict[Condition, Recording] = {"temperature": {"n1": _hot((0, 100)), "n2": _hot((50, 100))}}
    (held,) = replay(both_hot, policy, end=200).breaker
    assert held.waiting == ("n2",) and (held.allowed, held.total_nodes) == (1, 2)
    assert replay(both_hot, policy, end=200, total_nodes=4).breaker == ()


def test_one_step_divides_every_condition_hold() -> None:
    assert common_hold([10, 15, 0]) == 5
    assert common_hold([0]) == 0
    assert replay_step(common_hold([10, 4]), 1.5) == 1.0
