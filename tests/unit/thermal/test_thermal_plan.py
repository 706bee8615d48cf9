"""Per-pod plans: hot pods off, the last routable replica kept unless full shutoff is allowed."""

from __future__ import annotations

from collections.abc import Callable

from nufi.thermal.plan import DeploymentView, PodView, decide
from nufi.thermal.policy import ThermalPolicy


def pod(name: str, node: str, *, ready: bool = True, on: bool = True) -> PodView:
    return PodView("p1", name, node, (), ready, on)


def view(*pods: PodView, enabled: bool = True, full: bool = False) -> DeploymentView:
    return DeploymentView("p1", "chat", "lpu", ThermalPolicy(enabled=enabled, allow_full_shutoff=full), pods)


def hot_on(*nodes: str) -> Callable[[PodView], tuple[bool, str | None]]:
    return lambda p: (p.node in nodes, f"{p.node} at 95 °C (trip 85 °C)" if p.node in nodes else None)


def test_hot_pods_go_off_with_reason() -> None:
    got = decide(view(pod("a", "n1"), pod("b", "n2")), hot_on("n1"))
    assert [(d.pod.name, d.traffic_on, d.kept) for d in got] == [("a", False, False), ("b", True, False)]
    assert got[0].reason == "n1 at 95 °C (trip 85 °C)" and got[1].reason is None


def test_last_routable_replica_is_kept_preferring_the_one_on() -> None:
    got = decide(view(pod("a", "n1", on=False), pod("b", "n2")), hot_on("n1", "n2"))
    assert [(d.traffic_on, d.kept) for d in got] == [(False, False), (True, True)]
    assert got[1].reason == "last routable replica of p1/chat; full shutoff not allowed"


def test_kept_by_name_when_none_is_on() -> None:
    got = decide(view(pod("b", "n2", on=False), pod("a", "n1", on=False)), hot_on("n1", "n2"))
    assert [d.kept for d in got] == [False, True]


def test_full_shutoff_allowed_turns_all_off() -> None:
    got = decide(view(pod("a", "n1"), pod("b", "n2"), full=True), hot_on("n1", "n2"))
    assert not any(d.traffic_on for d in got)


def test_disabled_policy_turns_all_on() -> None:
    got = decide(view(pod("a", "n1", on=False), enabled=False), hot_on("n1"))
    assert got[0].traffic_on and got[0].reason is None


def test_non_ready_pods_do_not_count_as_routable() -> None:
    got = decide(view(pod("a", "n1"), pod("b", "n2", ready=False)), hot_on("n1"))
    assert [(d.traffic_on, d.kept) for d in got] == [(True, True), (True, False)]


def test_no_ready_hot_pod_means_nothing_to_keep() -> None:
    got = decide(view(pod("a", "n1", ready=False)), hot_on("n1"))
    assert not got[0].traffic_on and not got[0].kept
