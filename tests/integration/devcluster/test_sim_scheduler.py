"""The simulated scheduler: node selectors, taints, extended resources, and its reasons."""

from __future__ import annotations

from nufi_sandbox.devcluster.sim import NodeSpec, TaintSpec
from nufi_sandbox.devcluster.sim.scheduling import fit_error_message
from support.polling import eventually, holds

from .simcluster import SimCluster, SimClusters
from .simobjects import GPU, LPU, bound, condition, pod, running_ready

MISMATCH = "1 node(s) didn't match Pod's node affinity/selector"


def _pending(cluster: SimCluster, name: str, message: str) -> None:
    p = cluster.get("Pod", name)
    scheduled = condition(p, "PodScheduled")
    assert not p["spec"].get("nodeName") and p["status"]["phase"] == "Pending"
    assert scheduled is not None and scheduled["status"] == "False"
    assert scheduled["reason"] == "Unschedulable"
    assert scheduled["message"] == message


async def test_scheduler_honours_node_selectors(clusters: SimClusters) -> None:
    cluster = await clusters.start(
        [NodeSpec(name=f"n{i}", labels={"zone": z}) for i, z in ((1, "a"), (2, "b"), (3, "a"))]
    )
    cluster.create("Pod", pod("in-b", nodeSelector={"zone": "b"}))
    cluster.create("Pod", pod("in-c", nodeSelector={"zone": "c"}))
    assert await eventually(lambda: bound(cluster, "in-b")) == "n2"
    scheduled = condition(cluster.get("Pod", "in-b"), "PodScheduled")
    assert scheduled is not None and scheduled["status"] == "True"
    message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    await eventually(lambda: _pending(cluster, "in-c", message))
    [event] = cluster.events_for("in-c", "FailedScheduling")
    assert event["type"] == "Warning" and event["message"] == message
    assert event["source"]["component"] == "default-scheduler"

    cluster.mutate("Node", "n3", lambda n: n["metadata"]["labels"].update(zone="c"), namespace="")
    assert await eventually(lambda: bound(cluster, "in-c")) == "n3"


async def test_scheduler_honours_taints_and_tolerations(clusters: SimClusters) -> None:
    nodes = [
        NodeSpec(name="n1", taints=[TaintSpec(key="dedicated", value="lpu", effect="NoSchedule")]),
        NodeSpec(name="n2", taints=[TaintSpec(key="maintenance", value="yes", effect="NoExecute")]),
        NodeSpec(name="n3", taints=[TaintSpec(key="spare", value="1", effect="PreferNoSchedule")]),
    ]
    cluster = await clusters.start(nodes)
    cluster.create("Pod", pod("plain"))
    assert await eventually(lambda: bound(cluster, "plain")) == "n3"  # PreferNoSchedule does not block

    cluster.mutate("Node", "n3", lambda n: n["spec"].update(unschedulable=True), namespace="")
    cluster.create("Pod", pod("blocked"))
    await eventually(
        lambda: _pending(
            cluster,
            "blocked",
            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: lpu}, "
            "1 node(s) had untolerated taint {maintenance: yes}, 1 node(s) were unschedulable.",
        )
    )
    cluster.create(
        "Pod",
        pod(
            "equal",
            tolerations=[{"key": "dedicated", "operator": "Equal", "value": "lpu", "effect": "NoSchedule"}],
        ),
    )
    cluster.create("Pod", pod("exists", tolerations=[{"key": "maintenance", "operator": "Exists"}]))
    cluster.create("Pod", pod("wrong-value", tolerations=[{"key": "dedicated", "value": "gpu"}]))
    assert await eventually(lambda: bound(cluster, "equal")) == "n1"
    assert await eventually(lambda: bound(cluster, "exists")) == "n2"
    await eventually(
        lambda: _pending(
            cluster,
            "wrong-value",
            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: lpu}, "
            "1 node(s) had untolerated taint {maintenance: yes}, 1 node(s) were unschedulable.",
        )
    )


async def test_scheduler_counts_extended_resources(clusters: SimClusters) -> None:
    cluster = await clusters.start(
        [NodeSpec(name="n1", capacity={LPU: "4"}), NodeSpec(name="n2"), NodeSpec(name="n3")]
    )
    # The static capacity of n1 is served by no device plugin: the kubelet just runs the pods.
    for name in ("first", "second", "third"):
        cluster.create("Pod", pod(name, limits={LPU: "2"}))
    assert await eventually(lambda: bound(cluster, "first")) == "n1"
    assert await eventually(lambda: bound(cluster, "second")) == "n1"
    message = f"0/3 nodes are available: 3 Insufficient {LPU}."
    await eventually(lambda: _pending(cluster, "third", message))
    assert cluster.events_for("third", "FailedScheduling")[0]["message"] == message

    cluster.delete("Pod", "first")
    assert await eventually(lambda: bound(cluster, "third")) == "n1"
    await eventually(lambda: holds(running_ready(cluster.get("Pod", "third"))))


async def test_scheduler_combines_reasons_like_the_real_one(clusters: SimClusters) -> None:
    nodes = [
        NodeSpec(name="n1", labels={"pool": "cpu"}, capacity={GPU: "8"}),
        NodeSpec(name="n2", labels={"pool": "gpu"}, capacity={GPU: "1"}),
        NodeSpec(name="n3", labels={"pool": "gpu"}),
    ]
    cluster = await clusters.start(nodes)
    cluster.create("Pod", pod("trainer", nodeSelector={"pool": "gpu"}, limits={GPU: "2"}))
    cluster.create("Pod", pod("big", nodeSelector={"pool": "gpu"}, limits={GPU: "2", "cpu": "100"}))
    await eventually(
        lambda: _pending(
            cluster,
            "trainer",
            f"0/3 nodes are available: {MISMATCH}, 2 Insufficient {GPU}.",
        )
    )
    # One node can fail for several resources at once; each counts.
    await eventually(
        lambda: _pending(
            cluster,
            "big",
            f"0/3 nodes are available: {MISMATCH}, 2 Insufficient cpu, 2 Insufficient {GPU}.",
        )
    )


def test_fit_error_sorts_reasons_as_strings() -> None:
    reasons = {f"n{i}": ["Insufficient cpu"] for i in range(10)} | {
        "x": ["Too many pods"],
        "y": ["Too many pods"],
    }
    assert fit_error_message(12, reasons) == "0/12 nodes are available: 10 Insufficient cpu, 2 Too many pods."
