"""The simulated nodes: their status, heartbeats and leases, and the node specs they come from."""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.sim import NodeSpecError, TaintSpec, parse_node_specs
from support.polling import eventually, present

from .simcluster import SimClusters
from .simobjects import LPU, condition


async def test_nodes_register_with_a_realistic_status_and_heartbeat(clusters: SimClusters) -> None:
    cluster = await clusters.start(heartbeat_seconds=0.2)
    nodes = cluster.list_of("Node", None)
    assert [n["metadata"]["name"] for n in nodes] == ["node-1", "node-2", "node-3"]
    node = cluster.get("Node", "node-2")
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-2"
    assert node["metadata"]["labels"]["kubernetes.io/os"] == "linux"
    assert node["metadata"]["labels"]["kubernetes.io/arch"] == "amd64"
    status = node["status"]
    assert status["capacity"]["cpu"] == "16" and status["capacity"]["memory"] == "64Gi"
    assert status["allocatable"]["pods"] == "110"
    assert {"type": "InternalIP", "address": "10.0.0.2"} in status["addresses"]
    assert {"type": "Hostname", "address": "node-2"} in status["addresses"]
    assert status["nodeInfo"]["kubeletVersion"] == "v1.31.0"
    assert status["nodeInfo"]["operatingSystem"] == "linux"
    assert status["nodeInfo"]["containerRuntimeVersion"].startswith("containerd://")
    by_type = {c["type"]: c for c in status["conditions"]}
    assert by_type["Ready"]["status"] == "True" and by_type["Ready"]["reason"] == "KubeletReady"
    assert {by_type[k]["status"] for k in ("MemoryPressure", "DiskPressure", "PIDPressure")} == {"False"}
    first_beat = by_type["Ready"]["lastHeartbeatTime"]

    lease = await eventually(lambda: present(cluster.find("Lease", "node-2", "kube-node-lease")))
    assert lease["spec"]["holderIdentity"] == "node-2"
    first_renew = lease["spec"]["renewTime"]

    def renewed() -> None:
        assert cluster.get("Lease", "node-2", "kube-node-lease")["spec"]["renewTime"] != first_renew

    await eventually(renewed)
    # Heartbeats rewrite the time without ever flipping the condition.
    ready = condition(cluster.get("Node", "node-2"), "Ready")
    assert ready is not None and ready["status"] == "True"
    assert (
        ready["lastTransitionTime"] <= ready["lastHeartbeatTime"] and first_beat <= ready["lastHeartbeatTime"]
    )


def test_node_specs_parse_from_yaml_with_defaults() -> None:
    specs = parse_node_specs(
        """
        nodes:
          - name: lpu-1
            labels: {accelerator: lpu, fast: true}
            taints: [{key: hyperaccel.ai/lpu, effect: NoSchedule}]
            capacity: {cpu: 32, hyperaccel.ai/lpu: 4}
            device_plugins: false
          - name: plain
        """
    )
    assert [s.name for s in specs] == ["lpu-1", "plain"]
    assert specs[0].labels == {"accelerator": "lpu", "fast": "true"}
    assert specs[0].taints == [TaintSpec(key=LPU, effect="NoSchedule")]
    assert specs[0].full_capacity() == {
        "cpu": "32",
        "memory": "64Gi",
        "pods": "110",
        "ephemeral-storage": "100Gi",
        LPU: "4",
    }
    assert specs[0].device_plugins is False and specs[1].device_plugins is True


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- name: a\n- name: a\n", "node name 'a' appears twice"),
        ("- name: a\n  capacity: {cpu: lots}\n", "'lots' is not a quantity"),
        ("- name: Not_A_Name\n", "is not a valid node name"),
        ("- name: a\n  labels: {zone: eu west}\n", "value 'eu west' of 'zone': a valid label must be"),
        ("- name: a\n  taints: [{key: k, effect: Sometimes}]\n", "node #1: taints.0.effect"),
        ("- name: a\n  colour: red\n", "node #1: colour"),
        ("{}", "expected a non-empty list of nodes"),
    ],
)
def test_bad_node_specs_say_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(NodeSpecError, match=re.escape(problem)):
        parse_node_specs(text, source="nodes.yaml")


@given(
    st.lists(
        st.tuples(st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True), st.integers(0, 10**6)),
        min_size=1,
        max_size=5,
        unique_by=lambda t: t[0],
    )
)
def test_node_specs_round_trip_any_integer_capacity(rows: list[tuple[str, int]]) -> None:
    document = {"nodes": [{"name": name, "capacity": {"example.com/dev": count}} for name, count in rows]}
    specs = parse_node_specs(yaml.safe_dump(document))
    assert [(s.name, s.full_capacity()["example.com/dev"]) for s in specs] == [(n, str(c)) for n, c in rows]
