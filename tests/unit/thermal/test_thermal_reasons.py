"""Why thermal control cuts, keeps or cannot judge: each reason is a code with its figures (the node,
the temperature to a tenth of a degree, the trip and resume temperatures), worded in Korean or English,
and written on the pod as data for a deployment's page."""

from __future__ import annotations

import json

from nufi.messages import Message
from nufi.thermal.policy import CustomCondition, ThermalPolicy
from nufi.thermal.protection.assessment import Assessment, assess
from nufi.thermal.protection.hysteresis import Track
from nufi.thermal.protection.reasons import why
from nufi.thermal.protection.serving import ServingDeployment, ServingPod
from nufi.thermal.protection.temperatures import Temperatures, temperatures
from nufi.workloads.deployments.status import pod_state
from nufi.workloads.labels import THERMAL_OFF_REASON, THERMAL_REASON_MESSAGE

POLICY = ThermalPolicy(enabled=True, trip_hold_seconds=0, resume_hold_seconds=30, trip_celsius=85)


def pod(name: str, node: str) -> ServingPod:
    return ServingPod("team", name, f"uid-{name}", node, True, True, None)


def hot_pass(serving: ServingDeployment, readings: Temperatures) -> Assessment:
    first = assess(
        now=0,
        policies={"lpu": POLICY},
        temperatures={"lpu": readings},
        serving=(serving,),
        tracks={},
        tainted=set(),
    )
    return assess(
        now=1,
        policies={"lpu": POLICY},
        temperatures={"lpu": readings},
        serving=(serving,),
        tracks=first.tracks,
        tainted=set(),
    )


def test_a_hot_pod_is_cut_with_the_node_and_its_temperature_to_a_tenth() -> None:
    serving = ServingDeployment("team", "llm", "lpu", (pod("a", "n1"), pod("b", "n2")), None)
    result = hot_pass(serving, Temperatures({"n1": 91.26, "n2": 60.0}, {}, {}))
    cut = next(d for d in result.decisions if d.pod.name == "a")
    assert not cut.traffic_on and cut.reason is not None and cut.reason.code == "thermal.reason.hot"
    assert cut.reason.to_data()["params"] == {
        "where": {"code": "thermal.where.node", "params": {"node": "n1"}},
        "trip": 85.0,
        "resume": 75.0,
        "temperature": 91.3,
    }
    assert cut.reason_text == "n1 at 91.3 °C (trip 85 °C, resume at 75 °C)"
    assert cut.reason.text("ko") == "n1: 91.3 °C (차단 85 °C, 복귀 75 °C)"


def test_the_last_replica_is_kept_and_says_why_in_korean() -> None:
    serving = ServingDeployment("team", "llm", "lpu", (pod("a", "n1"),), None)
    (kept,) = hot_pass(serving, Temperatures({"n1": 95.0}, {}, {})).decisions
    assert kept.traffic_on and kept.kept and kept.reason is not None
    assert kept.reason.code == "thermal.reason.kept_last_replica"
    assert kept.reason.params["deployment"] == "team/llm"
    assert kept.reason.text("ko").startswith("team/llm의 마지막 라우팅 가능한 복제본이라 트래픽을 유지합니다")
    assert "kept as the last routable replica of team/llm although n1 at 95.0 °C" in (kept.reason_text or "")


def test_a_stale_node_says_why_it_cannot_be_read() -> None:
    old = temperatures(None, max_age_seconds=30)
    assert old.unusable == Message("thermal.stale.no_snapshot")
    assert old.unusable.text("ko") == "이 장치 유형의 모니터링 스냅숏이 아직 없습니다"
    aged = Message("thermal.stale.snapshot_old", {"age_seconds": 42.4, "limit_seconds": 30.0})
    assert aged.text("en") == "the latest snapshot is 42 s old (limit 30 s)"
    assert aged.text("ko") == "최근 스냅숏이 42초 전 것입니다 (한도 30초)"


def test_a_deployments_pod_reads_the_reason_thermal_control_wrote() -> None:
    reason = Message(
        "thermal.reason.hot_stale",
        {"where": Message("thermal.where.device", {"device": "lpu3", "node": "n1"})},
    )
    annotations = {
        THERMAL_OFF_REASON: reason.text("en"),
        THERMAL_REASON_MESSAGE: json.dumps(reason.to_data()),
    }
    state = pod_state({"metadata": {"name": "llm-a", "annotations": annotations}, "spec": {}, "status": {}})
    assert state.thermal_reason == reason.text("en")
    assert state.thermal_message is not None
    assert state.thermal_message.text("ko").startswith(
        "n1의 장치 lpu3: 과열 상태에서 지금은 온도를 읽을 수 없습니다"
    )
    unknown = {THERMAL_REASON_MESSAGE: json.dumps({"code": "thermal.reason.from_the_future", "params": {}})}
    assert pod_state({"metadata": {"name": "x", "annotations": unknown}}).thermal_message is None


def test_an_own_condition_the_admin_did_not_name_is_worded_in_the_readers_language() -> None:
    where = Message("thermal.where.node", {"node": "n1"})
    track = Track(hot=True, since=0.0, temperature=3.0)
    unnamed = ThermalPolicy(custom=CustomCondition(enabled=True, expression="ecc_errors_total"))
    said = why(where, track, unnamed, "custom")
    assert "사용자 정의 조건" in said.text("ko") and "custom" not in said.text("ko")
    assert "own condition" in said.text("en")
    # On the pod, as data: the name is a code of its own, for each face to word.
    assert said.to_data()["params"]["name"] == {"code": "thermal.condition.unnamed", "params": {}}
    named = ThermalPolicy(
        custom=CustomCondition(enabled=True, expression="ecc_errors_total", name="ECC 오류")
    )
    assert "ECC 오류" in why(where, track, named, "custom").text("en")
