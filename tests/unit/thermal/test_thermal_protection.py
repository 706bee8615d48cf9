"""Protection beyond temperature, without I/O: a device reading unhealthy takes the pod holding it out
of traffic after the trip hold (device scope: the other pod on the node keeps serving) and brings it
back after the resume hold; unknown health changes nothing; the breaker cuts at most its share of the
nodes and of a deployment's replicas, says why for the others, and lets go once fewer are affected."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from pydantic import ValidationError

from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.assessment import Assessment, TrackKey, assess
from nufi.thermal.protection.hysteresis import Track
from nufi.thermal.protection.serving import ServingDeployment, ServingPod
from nufi.thermal.protection.temperatures import Readings, Temperatures

HEALTH = ThermalPolicy.model_validate(
    {
        "enabled": True,
        "scope": "device",
        "unhealthy": {"enabled": True, "trip_hold_seconds": 2, "resume_hold_seconds": 4},
        "breaker": {"max_node_share": 1.0, "max_replica_share": 1.0},
    }
)
HELD = {("team", "a"): (("n1", "d0"),), ("team", "b"): (("n1", "d1"),), ("team", "c"): (("n2", "d0"),)}


def pod(name: str, node: str, *, on: bool = True) -> ServingPod:
    return ServingPod("team", name, f"uid-{name}", node, True, on)


SERVING = ServingDeployment("team", "llm", "lpu", (pod("a", "n1"), pod("b", "n1"), pod("c", "n2")))


def health(**devices: float | None) -> Readings:
    """Per device `n1_d0=1.0` (unhealthy), 0.0 (healthy) or None (unknown); each node its worst."""
    by_device = {tuple(k.split("_")): v for k, v in devices.items()}
    nodes: dict[str, float | None] = {}
    for (node, _), value in by_device.items():
        nodes[node] = (
            None if value is None or nodes.get(node, 0.0) is None else max(value, nodes.get(node, 0.0) or 0.0)
        )
    return Readings(nodes, by_device, HELD)  # type: ignore[arg-type]


def cool() -> Temperatures:
    return Temperatures(
        {"n1": 50.0, "n2": 50.0}, {("n1", "d0"): 50.0, ("n1", "d1"): 50.0, ("n2", "d0"): 50.0}, HELD
    )


def run(
    now: float,
    readings: Readings,
    tracks: Mapping[TrackKey, Track] | None = None,
    *,
    policy: ThermalPolicy = HEALTH,
    temperatures: Temperatures | None = None,
    serving: ServingDeployment = SERVING,
) -> Assessment:
    return assess(
        now=now,
        policies={"lpu": policy},
        temperatures={"lpu": temperatures or cool()},
        serving=(serving,),
        tracks=tracks or {},
        tainted=frozenset(),
        health={"lpu": readings},
    )


def traffic(result: Assessment) -> dict[str, bool]:
    return {d.pod.name: d.traffic_on for d in result.decisions}


def test_an_unhealthy_device_takes_only_its_pod_out_after_the_hold_and_back_after_the_resume_hold() -> None:
    sick = health(n1_d0=1.0, n1_d1=0.0, n2_d0=0.0)
    first = run(0, sick)
    assert traffic(first) == {"a": True, "b": True, "c": True}
    tripped = run(2, sick, first.tracks)
    assert traffic(tripped) == {"a": False, "b": True, "c": True}
    # The device, and its node as a whole (which the status and the history show).
    assert {(t.key.condition, t.key.node, t.key.device, t.hot) for t in tripped.transitions} == {
        ("unhealthy", "n1", "d0", True),
        ("unhealthy", "n1", None, True),
    }
    (cut,) = [d for d in tripped.decisions if not d.traffic_on]
    assert cut.reason is not None and cut.reason.code == "thermal.reason.unhealthy"
    assert cut.reason.text("en") == "device d0 on n1 reads unhealthy"
    (status,) = tripped.types
    node = next(n for n in status.nodes if n.node == "n1")
    assert node.unhealthy and node.unhealthy_devices == ("d0",) and not node.hot_devices

    well = health(n1_d0=0.0, n1_d1=0.0, n2_d0=0.0)
    waiting = run(5, well, tripped.tracks)
    assert traffic(waiting) == {"a": False, "b": True, "c": True}
    back = run(9, well, waiting.tracks)
    assert traffic(back) == {"a": True, "b": True, "c": True}
    assert {(t.key.condition, t.key.device, t.hot) for t in back.transitions} == {
        ("unhealthy", "d0", False),
        ("unhealthy", None, False),
    }


def test_unknown_health_changes_nothing_and_a_disabled_condition_reads_none() -> None:
    sick = health(n1_d0=1.0, n1_d1=0.0, n2_d0=0.0)
    tripped = run(2, sick, run(0, sick).tracks)
    unknown = health(n1_d0=None, n1_d1=0.0, n2_d0=0.0)
    later = tripped
    for now in (10, 20, 30):
        later = run(now, unknown, later.tracks)
    assert traffic(later) == {"a": False, "b": True, "c": True}
    off = HEALTH.model_copy(update={"unhealthy": HEALTH.unhealthy.model_copy(update={"enabled": False})})
    quiet = run(2, sick, run(0, sick, policy=off).tracks, policy=off)
    assert traffic(quiet) == {"a": True, "b": True, "c": True}
    assert not [k for k in quiet.tracks if k.condition == "unhealthy"]


def test_with_scope_node_an_unhealthy_device_takes_its_whole_node_out() -> None:
    node_scope = HEALTH.model_copy(update={"scope": "node"})
    sick = health(n1_d0=1.0, n1_d1=0.0, n2_d0=0.0)
    tripped = run(2, sick, run(0, sick, policy=node_scope).tracks, policy=node_scope)
    assert traffic(tripped) == {"a": False, "b": False, "c": True}
    (cut,) = {d.reason.text("en") for d in tripped.decisions if d.reason is not None}
    assert cut == "n1 reads unhealthy"


def _hot_everywhere() -> Temperatures:
    return Temperatures({"n1": 95.0, "n2": 95.0}, {}, HELD)


def test_the_breaker_cuts_at_most_its_share_of_nodes_and_lets_go_once_fewer_are_affected() -> None:
    halves = ThermalPolicy.model_validate(
        {
            "enabled": True,
            "trip_hold_seconds": 0,
            "breaker": {"max_node_share": 0.5, "max_replica_share": 1.0},
        }
    )
    well = health(n1_d0=0.0, n1_d1=0.0, n2_d0=0.0)
    both = run(0, well, policy=halves, temperatures=_hot_everywhere())
    # One of two nodes may be cut: n1 (by name, neither was cut before); n2 keeps serving, saying why.
    assert traffic(both) == {"a": False, "b": False, "c": True}
    (status,) = both.types
    assert status.breaker is not None and status.breaker.held
    assert (status.breaker.cut, status.breaker.waiting, status.breaker.allowed) == (("n1",), ("n2",), 1)
    (kept,) = [d for d in both.decisions if d.kept]
    assert (
        kept.pod.name == "c"
        and kept.reason is not None
        and kept.reason.code == "thermal.reason.breaker_nodes"
    )
    assert "1 of 2 nodes" in kept.reason.text("en")
    assert next(n for n in status.nodes if n.node == "n2").held
    # Already cut stays cut, whatever the order: no needless switch.
    serving = ServingDeployment(
        "team", "llm", "lpu", (pod("a", "n1"), pod("b", "n1"), pod("c", "n2", on=False))
    )
    again = run(1, well, both.tracks, policy=halves, temperatures=_hot_everywhere(), serving=serving)
    assert traffic(again) == {"a": True, "b": True, "c": False}
    # n1 cools below resume for the resume hold: n2 alone is affected, within the share, cut as usual.
    cooled = Temperatures({"n1": 60.0, "n2": 95.0}, {}, HELD)
    cooling = run(100, well, again.tracks, policy=halves, temperatures=cooled, serving=serving)
    calm = run(130, well, cooling.tracks, policy=halves, temperatures=cooled, serving=serving)
    assert traffic(calm) == {"a": True, "b": True, "c": False}
    (status,) = calm.types
    assert status.breaker is not None and not status.breaker.held and status.breaker.cut == ("n2",)


def test_the_breaker_cuts_at_most_its_share_of_a_deployments_replicas() -> None:
    third = ThermalPolicy.model_validate(
        {
            "enabled": True,
            "trip_hold_seconds": 0,
            "breaker": {"max_node_share": 1.0, "max_replica_share": 0.5},
        }
    )
    four = ServingDeployment(
        "team", "llm", "lpu", (pod("a", "n1"), pod("b", "n1"), pod("c", "n1"), pod("d", "n2"))
    )
    hot_n1 = Temperatures({"n1": 95.0, "n2": 50.0}, {}, HELD)
    result = run(0, health(n1_d0=0.0, n1_d1=0.0, n2_d0=0.0), policy=third, temperatures=hot_n1, serving=four)
    # Three replicas on the hot node, two of four may be cut.
    assert traffic(result) == {"a": False, "b": False, "c": True, "d": True}
    (kept,) = [d for d in result.decisions if d.kept]
    assert kept.reason is not None and kept.reason.code == "thermal.reason.breaker_replicas"
    assert "2 of its 4 replicas" in kept.reason.text("en")


ECC = {
    "enabled": True,
    "name": "ECC errors",
    "expression": "lpu_ecc_errors_total",
    "trip_at": 10.0,
    "resume_at": 0.0,
    "trip_hold_seconds": 2,
    "resume_hold_seconds": 4,
}


def test_a_custom_condition_trips_and_resumes_on_its_own_values_and_says_its_name() -> None:
    own = ThermalPolicy.model_validate(
        {"enabled": True, "scope": "device", "custom": ECC, "breaker": {"max_replica_share": 1.0}}
    )
    well = health(n1_d0=0.0, n1_d1=0.0, n2_d0=0.0)

    def run_custom(
        now: float, d0: float | None, tracks: Mapping[TrackKey, Track] | None = None
    ) -> Assessment:
        errors = Readings(
            {"n1": d0, "n2": 0.0}, {("n1", "d0"): d0, ("n1", "d1"): 0.0, ("n2", "d0"): 0.0}, HELD
        )
        return assess(
            now=now,
            policies={"lpu": own},
            temperatures={"lpu": cool()},
            serving=(SERVING,),
            tracks=tracks or {},
            tainted=frozenset(),
            health={"lpu": well},
            custom={"lpu": errors},
        )

    tripped = run_custom(2, 12.0, run_custom(0, 12.0).tracks)
    assert traffic(tripped) == {"a": False, "b": True, "c": True}
    (cut,) = [d for d in tripped.decisions if not d.traffic_on]
    assert cut.reason is not None and cut.reason.text("en") == (
        "device d0 on n1 reads 12 on ECC errors (trip at 10, resume at 0)"
    )
    (status,) = tripped.types
    assert next(n for n in status.nodes if n.node == "n1").custom_devices == ("d0",)
    # A silent expression changes nothing; back at or below resume for the hold, the pod returns.
    silent = run_custom(10, None, tripped.tracks)
    assert traffic(silent) == {"a": False, "b": True, "c": True}
    cleared = run_custom(15, 0.0, run_custom(11, 0.0, silent.tracks).tracks)
    assert traffic(cleared) == {"a": True, "b": True, "c": True}


@pytest.mark.parametrize(
    ("custom", "code"),
    [
        ({"enabled": True}, "thermal_policy.custom_expression_required"),
        ({"trip_at": 1.0, "resume_at": 1.0}, "thermal_policy.custom_resume_not_below_trip"),
        ({"expression": "rate(x[5m]"}, "device_type.promql_unparsable"),
        ({"expression": "x[5m]"}, "promql.range_vector"),
    ],
)
def test_a_custom_condition_that_cannot_work_is_refused_with_its_reason(
    custom: dict[str, object], code: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        ThermalPolicy.model_validate({"custom": custom})
    (error,) = refused.value.errors()
    assert error["type"] == code and error["loc"] == ("custom",)
