"""One pass of thermal control without I/O: a hot node's pods lose traffic after the hold, a restart
rebuilds a hot node from its pods' labels and keeps it cut until it has cooled for the resume hold,
stale readings keep everything as it is, and taints follow the node's state."""

from __future__ import annotations

from collections.abc import Mapping

from nufi.thermal.policy import PolicyOverride, ThermalPolicy
from nufi.thermal.protection.assessment import Assessment, TrackKey, assess
from nufi.thermal.protection.hysteresis import Track
from nufi.thermal.protection.serving import ServingDeployment, ServingPod
from nufi.thermal.protection.temperatures import Temperatures

POLICY = ThermalPolicy(
    enabled=True, trip_hold_seconds=10, resume_hold_seconds=30, taint_node=True, trip_celsius=85
)


def pod(name: str, node: str, *, on: bool = True, off_since: float | None = None) -> ServingPod:
    return ServingPod("team", name, f"uid-{name}", node, True, on, off_since)


def deployment(*pods: ServingPod, override: PolicyOverride | None = None) -> ServingDeployment:
    return ServingDeployment("team", "llm", "lpu", pods, override)


def temps(**nodes: float | None) -> Temperatures:
    return Temperatures(dict(nodes), {}, {})


def run(
    now: float,
    readings: Temperatures,
    serving: ServingDeployment,
    tracks: Mapping[TrackKey, Track] | None = None,
    tainted: frozenset[str] = frozenset(),
    policy: ThermalPolicy = POLICY,
) -> Assessment:
    return assess(
        now=now,
        policies={"lpu": policy},
        temperatures={"lpu": readings},
        serving=(serving,),
        tracks=tracks or {},
        tainted=tainted,
    )


def traffic(result: Assessment) -> dict[str, bool]:
    return {d.pod.name: d.traffic_on for d in result.decisions}


def test_a_node_hot_for_the_trip_hold_loses_its_pods_traffic_and_gets_tainted() -> None:
    serving = deployment(pod("a", "n1"), pod("b", "n2"))
    first = run(0, temps(n1=95, n2=60), serving)
    assert traffic(first) == {"a": True, "b": True} and not first.transitions and not first.taints
    second = run(10, temps(n1=95, n2=60), serving, first.tracks)
    assert traffic(second) == {"a": False, "b": True}
    (transition,) = second.transitions
    assert (transition.key.node, transition.hot, transition.temperature) == ("n1", True, 95)
    assert second.taints == {"n1": True}
    (status,) = second.types
    hot = next(n for n in status.nodes if n.node == "n1")
    assert hot.state == "hot" and [p.name for p in hot.pods if not p.traffic_on] == ["a"]
    assert hot.deployments == ("team/llm",)


def test_after_a_restart_a_node_whose_pods_are_off_starts_hot_and_resumes_only_after_the_hold() -> None:
    serving = deployment(pod("a", "n1", on=False, off_since=100), pod("b", "n2"))
    rebuilt = run(200, temps(n1=60, n2=60), serving, tainted=frozenset({"n1"}))
    assert traffic(rebuilt) == {"a": False, "b": True}
    assert not rebuilt.transitions and not rebuilt.taints
    (status,) = rebuilt.types
    assert next(n for n in status.nodes if n.node == "n1").since == 100
    still = run(229, temps(n1=60, n2=60), serving, rebuilt.tracks, tainted=frozenset({"n1"}))
    assert traffic(still) == {"a": False, "b": True}
    back = run(230, temps(n1=60, n2=60), serving, still.tracks, tainted=frozenset({"n1"}))
    assert traffic(back) == {"a": True, "b": True} and back.taints == {"n1": False}


def test_stale_readings_keep_a_hot_node_cut_and_its_taint() -> None:
    serving = deployment(pod("a", "n1", on=False, off_since=0), pod("b", "n2"))
    result = run(1000, temps(n1=None, n2=60), serving, tainted=frozenset({"n1"}))
    assert traffic(result) == {"a": False, "b": True} and result.taints == {}
    (status,) = result.types
    stale = next(n for n in status.nodes if n.node == "n1")
    assert stale.state == "stale" and stale.hot and stale.stale_reason


def test_a_stale_node_never_trips() -> None:
    serving = deployment(pod("a", "n1"), pod("b", "n2"))
    result = run(0, temps(n1=None, n2=60), serving)
    for now in range(1, 60, 5):
        result = run(now, temps(n1=None, n2=60), serving, result.tracks)
    assert traffic(result) == {"a": True, "b": True} and not result.transitions


def test_a_deployment_override_trips_on_its_own_threshold() -> None:
    own = deployment(pod("a", "n1"), pod("b", "n2"), override=PolicyOverride(trip_celsius=99))
    bounded = POLICY.model_copy(update={"override_max_trip_celsius": 100.0})
    first = run(0, temps(n1=95, n2=60), own, policy=bounded)
    second = run(10, temps(n1=95, n2=60), own, first.tracks, policy=bounded)
    # The type's policy says n1 is hot, the deployment's own threshold (99 °C) says it is not.
    assert traffic(second) == {"a": True, "b": True}
    (status,) = second.types
    assert next(n for n in status.nodes if n.node == "n1").state == "hot"


def test_a_disabled_policy_turns_pods_back_on_and_drops_the_taint() -> None:
    serving = deployment(pod("a", "n1", on=False, off_since=0), pod("b", "n2"))
    result = run(5, temps(n1=95, n2=60), serving, tainted=frozenset({"n1"}), policy=ThermalPolicy())
    assert traffic(result) == {"a": True, "b": True}
    assert result.taints == {"n1": False}


def test_an_override_beyond_its_policys_bounds_is_not_honoured() -> None:
    # Stored before an admin bounded overrides: switching protection off, and a trip above the bound.
    bounded = POLICY.model_copy(update={"override_max_trip_celsius": 90.0})
    for override in (PolicyOverride(enabled=False), PolicyOverride(trip_celsius=99)):
        own = deployment(pod("a", "n1"), pod("b", "n2"), override=override)
        first = run(0, temps(n1=95, n2=60), own, policy=bounded)
        second = run(10, temps(n1=95, n2=60), own, first.tracks, policy=bounded)
        # The type's policy applies: n1 is hot, so its pod's traffic is cut.
        assert traffic(second) == {"a": False, "b": True}, override
