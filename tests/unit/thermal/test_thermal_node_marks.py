"""What Monitoring marks on a node from thermal control's last pass: a hot node whose traffic is cut,
a hot node whose every pod still serves (kept: the last replica), a node it cannot read; nothing for a
cool node or a type whose protection is off."""

from __future__ import annotations

import pytest

from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.hysteresis import ThermalState
from nufi.thermal.protection.status import DeviceTypeStatus, NodeStatus, PodTraffic, ThermalStatus, node_marks

pytestmark = pytest.mark.unit


def pod(name: str, *, serving: bool) -> PodTraffic:
    return PodTraffic(namespace="team", name=name, deployment="llm", traffic_on=serving, kept=serving)


def node(
    name: str, *, state: ThermalState = "normal", hot: bool = False, pods: tuple[PodTraffic, ...] = ()
) -> NodeStatus:
    return NodeStatus(
        node=name,
        state=state,
        temperature_celsius=90.0 if hot else 50.0,
        since=0.0,
        hot=hot,
        hot_devices=(),
        deployments=("llm",) if pods else (),
        pods=pods,
    )


def status(*nodes: NodeStatus, enabled: bool = True) -> ThermalStatus:
    entry = DeviceTypeStatus(device_type="lpu", policy=ThermalPolicy(enabled=enabled), nodes=nodes)
    return ThermalStatus(updated_at=1.0, identity="a", leader=True, holder="a", types=(entry,))


def test_each_hot_or_unreadable_node_is_marked_by_what_became_of_its_traffic() -> None:
    nodes = (
        node("cut", state="hot", hot=True, pods=(pod("a", serving=False), pod("b", serving=True))),
        node("kept", state="hot", hot=True, pods=(pod("c", serving=True),)),
        node("empty", state="hot", hot=True),
        node("unreadable", state="stale"),
        node("cool"),
    )
    assert node_marks(status(*nodes), "lpu") == {
        "cut": "hot",
        "kept": "kept",
        "empty": "hot",
        "unreadable": "stale",
    }


def test_nothing_is_marked_for_another_type_a_disabled_policy_or_no_pass_yet() -> None:
    hot = node("n1", state="hot", hot=True, pods=(pod("a", serving=False),))
    assert node_marks(status(hot), "furiosa-rngd") == {}
    assert node_marks(status(hot, enabled=False), "lpu") == {}
    assert node_marks(None, "lpu") == {}


def test_a_node_cut_for_health_or_held_back_by_the_breaker_is_marked_so() -> None:
    sick = NodeStatus(
        node="n1",
        state="normal",
        temperature_celsius=50.0,
        since=0.0,
        hot=False,
        hot_devices=(),
        deployments=("llm",),
        pods=(pod("a", serving=False),),
        unhealthy=True,
        unhealthy_devices=("lpu0",),
    )
    held = NodeStatus(
        node="n2",
        state="hot",
        temperature_celsius=95.0,
        since=0.0,
        hot=True,
        hot_devices=(),
        deployments=("llm",),
        pods=(pod("b", serving=True),),
        held=True,
    )
    assert node_marks(status(sick, held), "lpu") == {"n1": "unhealthy", "n2": "held"}
