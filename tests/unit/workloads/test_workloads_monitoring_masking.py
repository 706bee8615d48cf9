"""Monitoring masking: hidden namespaces' pods read "another project" everywhere a snapshot names them."""

from __future__ import annotations

from nufi.monitoring.snapshots.attribution import PodHolding
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT, hide_all, mask_snapshot
from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot, Summary

OTHER = ANOTHER_PROJECT


def _node(name: str, pods: tuple[PodHolding, ...], devices: tuple[DeviceEntry, ...]) -> NodeEntry:
    workload = pods[0].name if len(pods) == 1 else (f"shared by {len(pods)} pods" if pods else None)
    return NodeEntry(name, 4, 4, sum(p.devices for p in pods), pods, workload, devices)


def _snapshot(*nodes: NodeEntry) -> Snapshot:
    return Snapshot("lpu", 0.0, Summary.of(nodes), nodes, (), ())


def test_hidden_namespaces_are_another_project_and_the_rest_keep_their_names() -> None:
    snapshot = _snapshot(
        _node(
            "n1",
            (PodHolding("theirs", "secret-llm", 4),),
            (DeviceEntry("0", pod="secret-llm", namespace="theirs"), DeviceEntry("1")),
        ),
        _node(
            "n2",
            (PodHolding("mine", "llm", 1), PodHolding("theirs", "x", 1)),
            (DeviceEntry("0", pod="llm", namespace="mine"), DeviceEntry("1", pod="x", namespace="theirs")),
        ),
        _node("n3", (PodHolding("kube-system", "agent", 1),), ()),
    )
    n1, n2, n3 = mask_snapshot(snapshot, {"theirs"}.__contains__).nodes
    assert n1.workload == OTHER and n1.pods == (PodHolding(OTHER, OTHER, 4),)
    assert [(d.pod, d.namespace) for d in n1.devices] == [(OTHER, OTHER), (None, None)]
    assert n2.workload == "shared by 2 pods"
    assert n2.pods == (PodHolding("mine", "llm", 1), PodHolding(OTHER, OTHER, 1))
    assert [(d.pod, d.namespace) for d in n2.devices] == [("llm", "mine"), (OTHER, OTHER)]
    assert n3.workload == "kube-system/agent" and n3.pods == (PodHolding("kube-system", "agent", 1),)
    # Counts and readings are untouched: only names go.
    assert [n.allocated for n in (n1, n2, n3)] == [4, 2, 1]


def test_hide_all_hides_every_named_pod() -> None:
    snapshot = _snapshot(
        _node("n1", (PodHolding("mine", "llm", 1),), (DeviceEntry("0", pod="llm", namespace=None),))
    )
    (node,) = mask_snapshot(snapshot, hide_all).nodes
    assert node.workload == OTHER and node.devices[0].pod == OTHER
