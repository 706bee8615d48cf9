"""Which pods keep their traffic: hot ones lose it, except the last routable replica unless the policy
allows a full shutoff."""

from __future__ import annotations

from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.plan import DeploymentView, PodView, decide

ON = ThermalPolicy(enabled=True)


def pod(name: str, node: str, *, ready: bool = True, on: bool = True) -> PodView:
    return PodView("team", name, node, (), ready, on)


def hot_on(*nodes: str):  # type: ignore[no-untyped-def]
    return lambda view: (view.node in nodes, _hot(view.node) if view.node in nodes else None)


def _hot(node: str) -> Message:
    where = Message("thermal.where.node", {"node": node})
    return Message("thermal.reason.hot", {"where": where, "temperature": 91.5, "trip": 85.0, "resume": 75.0})


def view(policy: ThermalPolicy, *pods: PodView) -> DeploymentView:
    return DeploymentView("team", "llm", "lpu", policy, pods)


def test_hot_pods_lose_traffic_and_cool_ones_keep_it() -> None:
    decided = decide(view(ON, pod("a", "n1"), pod("b", "n2")), hot_on("n1"))
    assert [(d.pod.name, d.traffic_on, d.kept) for d in decided] == [("a", False, False), ("b", True, False)]
    assert decided[0].reason == _hot("n1")


def test_the_last_routable_replica_is_kept_with_its_reason() -> None:
    (decided,) = decide(view(ON, pod("a", "n1")), hot_on("n1"))
    assert decided.traffic_on and decided.kept
    assert decided.reason == Message(
        "thermal.reason.kept_last_replica", {"deployment": "team/llm", "why": _hot("n1")}
    )
    assert decided.reason.text("en") == (
        "kept as the last routable replica of team/llm although n1 at 91.5 °C (trip 85 °C, resume at "
        "75 °C); the policy does not allow a full shutoff"
    )
    assert decided.reason.text("ko") == (
        "team/llm의 마지막 라우팅 가능한 복제본이라 트래픽을 유지합니다 "
        "(n1: 91.5 °C (차단 85 °C, 복귀 75 °C)). 정책이 전체 차단을 허용하지 않습니다"
    )


def test_with_full_shutoff_allowed_the_last_replica_goes_too() -> None:
    policy = ThermalPolicy(enabled=True, allow_full_shutoff=True)
    (decided,) = decide(view(policy, pod("a", "n1")), hot_on("n1"))
    assert not decided.traffic_on and not decided.kept


def test_pods_that_are_not_ready_do_not_count_as_routable() -> None:
    decided = decide(view(ON, pod("a", "n1"), pod("b", "n2", ready=False)), hot_on("n1"))
    assert [(d.pod.name, d.traffic_on, d.kept) for d in decided] == [("a", True, True), ("b", True, False)]


def test_the_kept_replica_is_the_one_already_serving() -> None:
    decided = decide(view(ON, pod("a", "n1", on=False), pod("b", "n1")), hot_on("n1"))
    assert [(d.pod.name, d.traffic_on) for d in decided] == [("a", False), ("b", True)]


def test_a_disabled_policy_turns_every_pod_on() -> None:
    decided = decide(view(ThermalPolicy(), pod("a", "n1", on=False)), hot_on("n1"))
    assert [(d.traffic_on, d.reason) for d in decided] == [(True, None)]
