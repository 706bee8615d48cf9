"""The dev cluster's simulation: controllers, scheduler and kubelets against the in-memory store."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
import yaml
from fakeplugin import FakePlugin, devices
from hypothesis import given
from hypothesis import strategies as st
from simcluster import SimCluster, SimClusters, eventually

from nufi_sandbox.devcluster.sim import NodeSpec, NodeSpecError, TaintSpec, parse_node_specs
from nufi_sandbox.devcluster.sim.scheduling import fit_error_message

pytestmark = pytest.mark.integration

Obj = dict[str, Any]
LPU = "hyperaccel.ai/lpu"
GPU = "nvidia.com/gpu"
MISMATCH = "1 node(s) didn't match Pod's node affinity/selector"


def pod(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    limits: dict[str, str] | None = None,
    gates: tuple[str, ...] = (),
    **spec: Any,
) -> Obj:
    main: Obj = {"name": "app", "image": "nginx:1.27", "ports": [{"name": "http", "containerPort": 8080}]}
    if limits:
        main["resources"] = {"limits": limits}
    body: Obj = {
        "metadata": {"name": name, "labels": labels or {"app": name}},
        "spec": {"containers": [main], **spec},
    }
    if gates:
        body["spec"]["readinessGates"] = [{"conditionType": g} for g in gates]
    return body


def workload(name: str, replicas: int | None = 3, **template_spec: Any) -> Obj:
    spec: Obj = {
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **template_spec},
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {"metadata": {"name": name}, "spec": spec}


def condition(obj: Obj, kind: str) -> Obj | None:
    return next((c for c in obj.get("status", {}).get("conditions") or [] if c["type"] == kind), None)


def live(pods: list[Obj]) -> list[Obj]:
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def running_ready(p: Obj) -> bool:
    ready = condition(p, "Ready")
    return p["status"].get("phase") == "Running" and ready is not None and ready["status"] == "True"


# -- nodes --------------------------------------------------------------------------------------------


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

    lease = await eventually(lambda: _found(cluster.find("Lease", "node-2", "kube-node-lease")))
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


def _found(obj: Obj | None) -> Obj:
    assert obj is not None
    return obj


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


# -- workloads ----------------------------------------------------------------------------------------


async def test_deployment_runs_ready_pods_and_scales(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    cluster.create("Deployment", workload("web", 3))

    def three_ready() -> list[Obj]:
        pods = live(cluster.list_of("Pod", app="web"))
        assert len(pods) == 3 and all(running_ready(p) for p in pods)
        status = cluster.get("Deployment", "web")["status"]
        assert status.get("readyReplicas") == 3 and status.get("availableReplicas") == 3
        assert status.get("updatedReplicas") == 3 and status.get("replicas") == 3
        return pods

    pods = await eventually(three_ready)
    [rs] = cluster.list_of("ReplicaSet")
    pod_hash = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{pod_hash}"
    deployment = cluster.get("Deployment", "web")
    assert rs["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "web",
            "uid": deployment["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    for p in pods:
        assert (
            p["metadata"]["name"].startswith(f"web-{pod_hash}-")
            and len(p["metadata"]["name"]) == len(f"web-{pod_hash}-") + 5
        )
        assert p["metadata"]["labels"]["pod-template-hash"] == pod_hash
        assert p["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"]
        assert p["spec"]["nodeName"] in ("node-1", "node-2", "node-3")
        assert p["status"]["podIP"].startswith("10.244.")
        assert p["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    # Least-allocated placement spreads equal pods over equal nodes.
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-1", "node-2", "node-3"]
    available = condition(deployment, "Available")
    progressing = condition(deployment, "Progressing")
    assert available is not None and available["status"] == "True"
    assert progressing is not None and progressing["reason"] == "NewReplicaSetAvailable"
    assert deployment["status"]["observedGeneration"] == deployment["metadata"]["generation"]

    cluster.mutate("Deployment", "web", lambda d: d["spec"].update(replicas=1))

    def one_left() -> None:
        assert len(cluster.list_of("Pod", app="web")) == 1
        status = cluster.get("Deployment", "web")["status"]
        assert status.get("replicas") == 1 and status.get("readyReplicas") == 1
        assert cluster.get("ReplicaSet", rs["metadata"]["name"])["status"]["replicas"] == 1

    await eventually(one_left)


@pytest.mark.parametrize("strategy", ["RollingUpdate", "Recreate"])
async def test_deployment_template_change_moves_to_a_new_replica_set(
    clusters: SimClusters, strategy: str
) -> None:
    cluster = await clusters.start()
    body = workload("api", 2)
    body["spec"]["strategy"] = {"type": strategy}
    cluster.create("Deployment", body)
    await eventually(
        lambda: _assert(len([p for p in cluster.list_of("Pod", app="api") if running_ready(p)]) == 2)
    )
    [old] = cluster.list_of("ReplicaSet")

    def new_image(d: Obj) -> None:
        d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"

    cluster.mutate("Deployment", "api", new_image)

    def rolled() -> None:
        sets = {rs["metadata"]["name"]: rs for rs in cluster.list_of("ReplicaSet")}
        assert len(sets) == 2
        assert sets[old["metadata"]["name"]]["spec"]["replicas"] == 0
        [new] = [rs for name, rs in sets.items() if name != old["metadata"]["name"]]
        assert new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
        pods = cluster.list_of("Pod", app="api")
        assert len(pods) == 2 and all(p["spec"]["containers"][0]["image"] == "nginx:1.28" for p in pods)
        assert all(running_ready(p) for p in pods)
        status = cluster.get("Deployment", "api")["status"]
        assert status.get("updatedReplicas") == 2 and status.get("availableReplicas") == 2

    await eventually(rolled)


async def test_paused_deployment_holds_its_rollout(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    cluster.create("Deployment", workload("batch", 1))
    await eventually(
        lambda: _assert(len([p for p in cluster.list_of("Pod", app="batch") if running_ready(p)]) == 1)
    )

    def pause_and_change(d: Obj) -> None:
        d["spec"]["paused"] = True
        d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"

    cluster.mutate("Deployment", "batch", pause_and_change)

    def paused() -> None:
        progressing = condition(cluster.get("Deployment", "batch"), "Progressing")
        assert progressing is not None and progressing["status"] == "Unknown"
        assert progressing["reason"] == "DeploymentPaused"

    await eventually(paused)
    assert len(cluster.list_of("ReplicaSet")) == 1
    assert cluster.get("Deployment", "batch")["status"].get("updatedReplicas") is None

    cluster.mutate("Deployment", "batch", lambda d: d["spec"].update(paused=False))

    def resumed() -> None:
        pods = cluster.list_of("Pod", app="batch")
        assert len(pods) == 1 and pods[0]["spec"]["containers"][0]["image"] == "nginx:1.28"
        assert len(cluster.list_of("ReplicaSet")) == 2

    await eventually(resumed)


def _assert(value: bool) -> None:
    assert value


async def test_replica_set_replaces_a_deleted_pod(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    rs = workload("cache", 2)
    cluster.create("ReplicaSet", rs)
    pods = await eventually(lambda: _n_ready(cluster, "cache", 2))
    victim = pods[0]["metadata"]["name"]
    cluster.delete("Pod", victim)

    def replaced() -> None:
        names = {p["metadata"]["name"] for p in _n_ready(cluster, "cache", 2)}
        assert victim not in names

    await eventually(replaced)
    created = cluster.events_for("cache", "SuccessfulCreate")
    assert created and created[0]["source"]["component"] == "replicaset-controller"


def _n_ready(cluster: SimCluster, app: str, count: int) -> list[Obj]:
    pods = cluster.list_of("Pod", app=app)
    assert len(pods) == count and all(running_ready(p) for p in pods)
    return pods


async def test_stateful_set_creates_pods_in_order(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    gate = "nufi.dev/warm"
    body = workload("db", 3, readinessGates=[{"conditionType": gate}])
    body["spec"]["serviceName"] = "db"
    cluster.create("StatefulSet", body)
    first = await eventually(lambda: _found(cluster.find("Pod", "db-0")))
    assert first["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == "db-0"
    assert first["metadata"]["labels"]["controller-revision-hash"].startswith("db-")
    assert first["spec"]["hostname"] == "db-0" and first["spec"]["subdomain"] == "db"
    await eventually(lambda: _assert(cluster.get("Pod", "db-0")["status"].get("phase") == "Running"))
    await asyncio.sleep(0.3)  # db-0 runs but is not Ready: db-1 must wait
    assert cluster.find("Pod", "db-1") is None

    cluster.set_pod_condition("db-0", gate, "True")
    await eventually(lambda: _found(cluster.find("Pod", "db-1")))
    assert cluster.find("Pod", "db-2") is None
    cluster.set_pod_condition("db-1", gate, "True")
    await eventually(lambda: _found(cluster.find("Pod", "db-2")))
    await eventually(lambda: _assert(cluster.get("Pod", "db-2")["status"].get("phase") == "Running"))
    cluster.set_pod_condition("db-2", gate, "True")

    def settled() -> None:
        status = cluster.get("StatefulSet", "db")["status"]
        assert status["replicas"] == 3 and status.get("readyReplicas") == 3
        assert status["currentRevision"] == status["updateRevision"]

    await eventually(settled)
    cluster.mutate("StatefulSet", "db", lambda sts: sts["spec"].update(replicas=1))

    def scaled_down() -> None:
        assert [p["metadata"]["name"] for p in cluster.list_of("Pod", app="db")] == ["db-0"]
        assert cluster.get("StatefulSet", "db")["status"]["replicas"] == 1

    await eventually(scaled_down)


async def test_parallel_stateful_set_creates_all_pods_at_once(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    body = workload("cache", 3, readinessGates=[{"conditionType": "nufi.dev/never"}])
    body["spec"]["podManagementPolicy"] = "Parallel"
    cluster.create("StatefulSet", body)

    def all_running() -> None:
        pods = cluster.list_of("Pod", app="cache")
        assert sorted(p["metadata"]["name"] for p in pods) == ["cache-0", "cache-1", "cache-2"]
        assert all(p["status"].get("phase") == "Running" and not running_ready(p) for p in pods)

    await eventually(all_running)


async def test_daemon_set_runs_one_pod_per_matching_node(clusters: SimClusters) -> None:
    nodes = [
        NodeSpec(name="a", labels={"pool": "accel"}),
        NodeSpec(name="b", labels={"pool": "accel"}, taints=[TaintSpec(key=LPU, effect="NoSchedule")]),
        NodeSpec(name="c", labels={"pool": "cpu"}, unschedulable=True),
        NodeSpec(name="d", labels={"pool": "accel"}, unschedulable=True),
    ]
    cluster = await clusters.start(nodes)
    cluster.create("DaemonSet", workload("exporter", None, nodeSelector={"pool": "accel"}))

    def placed() -> list[Obj]:
        pods = cluster.list_of("Pod", app="exporter")
        # b's taint is not tolerated; cordoned d still gets its daemon pod.
        assert sorted(p["spec"]["nodeName"] for p in pods) == ["a", "d"]
        assert all(running_ready(p) for p in pods)
        status = cluster.get("DaemonSet", "exporter")["status"]
        assert status["desiredNumberScheduled"] == 2 and status["currentNumberScheduled"] == 2
        assert status["numberReady"] == 2 and status["numberMisscheduled"] == 0
        return pods

    pods = await eventually(placed)
    assert all(p["metadata"]["labels"]["controller-revision-hash"] for p in pods)

    def tolerate(ds: Obj) -> None:
        ds["spec"]["template"]["spec"]["tolerations"] = [{"key": LPU, "operator": "Exists"}]

    cluster.mutate("DaemonSet", "exporter", tolerate)

    def everywhere() -> None:
        pods = cluster.list_of("Pod", app="exporter")
        assert sorted(p["spec"]["nodeName"] for p in pods) == ["a", "b", "d"]
        assert all(running_ready(p) and p["spec"]["tolerations"] for p in pods)
        assert cluster.get("DaemonSet", "exporter")["status"]["desiredNumberScheduled"] == 3

    await eventually(everywhere)


# -- scheduler ----------------------------------------------------------------------------------------


def _pending(cluster: SimCluster, name: str, message: str) -> None:
    p = cluster.get("Pod", name)
    scheduled = condition(p, "PodScheduled")
    assert not p["spec"].get("nodeName") and p["status"]["phase"] == "Pending"
    assert scheduled is not None and scheduled["status"] == "False"
    assert scheduled["reason"] == "Unschedulable"
    assert scheduled["message"] == message


def _bound(cluster: SimCluster, name: str) -> str:
    p = cluster.get("Pod", name)
    assert p["spec"].get("nodeName")
    return str(p["spec"]["nodeName"])


async def test_scheduler_honours_node_selectors(clusters: SimClusters) -> None:
    cluster = await clusters.start(
        [NodeSpec(name=f"n{i}", labels={"zone": z}) for i, z in ((1, "a"), (2, "b"), (3, "a"))]
    )
    cluster.create("Pod", pod("in-b", nodeSelector={"zone": "b"}))
    cluster.create("Pod", pod("in-c", nodeSelector={"zone": "c"}))
    assert await eventually(lambda: _bound(cluster, "in-b")) == "n2"
    scheduled = condition(cluster.get("Pod", "in-b"), "PodScheduled")
    assert scheduled is not None and scheduled["status"] == "True"
    message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    await eventually(lambda: _pending(cluster, "in-c", message))
    [event] = cluster.events_for("in-c", "FailedScheduling")
    assert event["type"] == "Warning" and event["message"] == message
    assert event["source"]["component"] == "default-scheduler"

    cluster.mutate("Node", "n3", lambda n: n["metadata"]["labels"].update(zone="c"), namespace="")
    assert await eventually(lambda: _bound(cluster, "in-c")) == "n3"


async def test_scheduler_honours_taints_and_tolerations(clusters: SimClusters) -> None:
    nodes = [
        NodeSpec(name="n1", taints=[TaintSpec(key="dedicated", value="lpu", effect="NoSchedule")]),
        NodeSpec(name="n2", taints=[TaintSpec(key="maintenance", value="yes", effect="NoExecute")]),
        NodeSpec(name="n3", taints=[TaintSpec(key="spare", value="1", effect="PreferNoSchedule")]),
    ]
    cluster = await clusters.start(nodes)
    cluster.create("Pod", pod("plain"))
    assert await eventually(lambda: _bound(cluster, "plain")) == "n3"  # PreferNoSchedule does not block

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
    assert await eventually(lambda: _bound(cluster, "equal")) == "n1"
    assert await eventually(lambda: _bound(cluster, "exists")) == "n2"
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
    assert await eventually(lambda: _bound(cluster, "first")) == "n1"
    assert await eventually(lambda: _bound(cluster, "second")) == "n1"
    message = f"0/3 nodes are available: 3 Insufficient {LPU}."
    await eventually(lambda: _pending(cluster, "third", message))
    assert cluster.events_for("third", "FailedScheduling")[0]["message"] == message

    cluster.delete("Pod", "first")
    assert await eventually(lambda: _bound(cluster, "third")) == "n1"
    await eventually(lambda: _assert(running_ready(cluster.get("Pod", "third"))))


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


# -- kubelet: readiness gates ---------------------------------------------------------------------------


async def test_readiness_gate_holds_ready_until_patched_true(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    gate = "nufi.dev/gpu-ready"
    cluster.create("Pod", pod("gated", gates=(gate,)))

    def waiting() -> Obj:
        p = cluster.get("Pod", "gated")
        assert p["status"]["phase"] == "Running"
        containers, ready = condition(p, "ContainersReady"), condition(p, "Ready")
        assert containers is not None and containers["status"] == "True"
        assert ready is not None and ready["status"] == "False"
        assert ready["reason"] == "ReadinessGatesNotReady"
        assert ready["message"] == f'corresponding condition of pod readiness gate "{gate}" does not exist.'
        return p

    running = await eventually(waiting)
    assert running["status"]["containerStatuses"][0]["ready"] is True
    assert running["status"]["podIP"].startswith("10.244.")

    cluster.set_pod_condition("gated", gate, "False")

    def still_waiting() -> None:
        ready = condition(cluster.get("Pod", "gated"), "Ready")
        assert ready is not None and ready["status"] == "False"
        assert ready["message"] == f'the status of pod readiness gate "{gate}" is not "True", but False'

    await eventually(still_waiting)
    cluster.set_pod_condition("gated", gate, "True")

    def ready_now() -> Obj:
        p = cluster.get("Pod", "gated")
        ready = condition(p, "Ready")
        assert ready is not None and ready["status"] == "True"
        return p

    p = await eventually(ready_now)
    kinds = {c["type"]: c["status"] for c in p["status"]["conditions"]}
    assert kinds == {
        "PodReadyToStartContainers": "True",
        "Initialized": "True",
        "Ready": "True",
        "ContainersReady": "True",
        "PodScheduled": "True",
        gate: "True",
    }


# -- endpoint slices ----------------------------------------------------------------------------------


def _endpoints(cluster: SimCluster, service: str) -> dict[str, Obj]:
    slices = cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": service})
    assert len(slices) == 1
    return {e["targetRef"]["name"]: e for e in slices[0].get("endpoints") or []}


async def test_endpoint_slices_follow_readiness_and_termination(clusters: SimClusters) -> None:
    cluster = await clusters.start(pod_stop_seconds=1.0)
    gate = "nufi.dev/serving"
    svc = cluster.create(
        "Service",
        {
            "metadata": {"name": "llm", "labels": {"team": "ml"}},
            "spec": {
                "selector": {"app": "llm"},
                "ports": [{"name": "web", "port": 80, "targetPort": "http"}],
            },
        },
    )
    cluster.create("Pod", pod("llm-a", labels={"app": "llm"}, gates=(gate,)))
    cluster.create("Pod", pod("other", labels={"app": "other"}))

    def listed_not_ready() -> Obj:
        [endpoint] = _endpoints(cluster, "llm").values()
        assert endpoint["conditions"] == {"ready": False, "serving": False, "terminating": False}
        return endpoint

    endpoint = await eventually(listed_not_ready)
    p = cluster.get("Pod", "llm-a")
    assert endpoint["addresses"] == [p["status"]["podIP"]] and endpoint["nodeName"] == p["spec"]["nodeName"]
    assert endpoint["targetRef"] == {
        "kind": "Pod",
        "namespace": "default",
        "name": "llm-a",
        "uid": p["metadata"]["uid"],
    }
    [slice_] = cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": "llm"})
    assert (
        slice_["metadata"]["name"].startswith("llm-") and len(slice_["metadata"]["name"]) == len("llm-") + 5
    )
    assert slice_["metadata"]["labels"] == {
        "team": "ml",
        "kubernetes.io/service-name": "llm",
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    }
    assert slice_["metadata"]["ownerReferences"][0]["uid"] == svc["metadata"]["uid"]
    assert slice_["addressType"] == "IPv4"
    assert slice_["ports"] == [{"name": "web", "port": 8080, "protocol": "TCP"}]

    cluster.set_pod_condition("llm-a", gate, "True")
    await eventually(
        lambda: _assert(
            _endpoints(cluster, "llm")["llm-a"]["conditions"]
            == {"ready": True, "serving": True, "terminating": False}
        )
    )
    cluster.delete("Pod", "llm-a")
    # During the grace period the pod still serves but takes no new traffic.
    await eventually(
        lambda: _assert(
            _endpoints(cluster, "llm")["llm-a"]["conditions"]
            == {"ready": False, "serving": True, "terminating": True}
        )
    )
    await eventually(lambda: _assert(_endpoints(cluster, "llm") == {}), within=5)
    # The slice stays, empty, and is updated in place rather than recreated.
    [kept] = cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": "llm"})
    assert kept["metadata"]["name"] == slice_["metadata"]["name"]


async def test_publish_not_ready_addresses_marks_unready_pods_ready(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    cluster.create(
        "Service",
        {
            "metadata": {"name": "peers"},
            "spec": {
                "selector": {"app": "peer"},
                "publishNotReadyAddresses": True,
                "clusterIP": "None",
                "ports": [{"port": 7000, "targetPort": 7001}],
            },
        },
    )
    cluster.create("Pod", pod("peer-0", labels={"app": "peer"}, gates=("nufi.dev/never",)))

    def published() -> None:
        endpoint = _endpoints(cluster, "peers")["peer-0"]
        assert endpoint["conditions"] == {"ready": True, "serving": False, "terminating": False}

    await eventually(published)
    [slice_] = cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": "peers"})
    assert slice_["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
    assert slice_["ports"] == [{"name": "", "port": 7001, "protocol": "TCP"}]

    cluster.mutate("Service", "peers", lambda s: s["spec"].pop("selector"))
    await eventually(
        lambda: _assert(cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": "peers"}) == [])
    )


async def test_endpoint_slices_hold_at_most_100_endpoints(clusters: SimClusters) -> None:
    cluster = await clusters.start([NodeSpec(name="big", capacity={"pods": "300"})])
    cluster.create(
        "Service",
        {"metadata": {"name": "wide"}, "spec": {"selector": {"app": "wide"}, "ports": [{"port": 80}]}},
    )
    cluster.create("ReplicaSet", workload("wide", 130))

    def split() -> None:
        slices = cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": "wide"})
        sizes = sorted(len(s.get("endpoints") or []) for s in slices)
        assert sizes == [30, 100]
        assert all(e["conditions"]["ready"] for s in slices for e in s["endpoints"])

    await eventually(split, within=15)


# -- kubelet: device plugins --------------------------------------------------------------------------


async def test_device_plugin_resources_reach_node_status_and_pods(clusters: SimClusters) -> None:
    cluster = await clusters.start([NodeSpec(name="lpu-1"), NodeSpec(name="plain", device_plugins=False)])
    sockets = cluster.sim.node_sockets()
    assert set(sockets) == {"lpu-1"}
    plugin_dir = cluster.state_dir / "nodes" / "lpu-1" / "device-plugins"
    assert sockets["lpu-1"]["device_plugin_dir"] == str(plugin_dir)
    assert (plugin_dir / "kubelet.sock").is_socket()
    assert (cluster.state_dir / "nodes" / "lpu-1" / "pod-resources" / "kubelet.sock").is_socket()

    plugin = FakePlugin(plugin_dir, "lpu.sock", devices(4))
    await plugin.serve()
    try:
        await plugin.register(resource=LPU)

        def advertised() -> None:
            status = cluster.get("Node", "lpu-1", "")["status"]
            assert status["capacity"].get(LPU) == "4" and status["allocatable"].get(LPU) == "4"

        await eventually(advertised)
        cluster.create("Pod", pod("infer", limits={LPU: "2"}))
        await eventually(lambda: _assert(running_ready(cluster.get("Pod", "infer"))))
        assert _bound(cluster, "infer") == "lpu-1"
        assert len(plugin.allocate_requests) == 1 and len(plugin.allocate_requests[0]) == 2
        agent = cluster.sim.agent("lpu-1")
        assert agent is not None and agent.devices is not None
        [held] = agent.devices.allocations()
        assert held.pod_name == "infer" and held.container == "app" and len(held.device_ids) == 2

        plugin.allocate_error = "device is on fire"
        cluster.create("Pod", pod("unlucky", limits={LPU: "2"}))

        def rejected() -> None:
            p = cluster.get("Pod", "unlucky")
            assert p["status"]["phase"] == "Failed"
            assert p["status"]["reason"] == "UnexpectedAdmissionError"
            assert p["status"]["message"].startswith("Pod was rejected: Allocate failed due to ")
            assert p["status"]["message"].endswith(", which is unexpected")

        await eventually(rejected)
        plugin.allocate_error = None
        cluster.delete("Pod", "infer")
        await eventually(lambda: _assert(cluster.find("Pod", "infer") is None))
        assert agent.devices.allocations() == []

        plugin.publish(devices(4, unhealthy=("lpu-3",)))

        def one_unhealthy() -> None:
            status = cluster.get("Node", "lpu-1", "")["status"]
            assert status["capacity"].get(LPU) == "4" and status["allocatable"].get(LPU) == "3"

        await eventually(one_unhealthy)
    finally:
        await plugin.stop()


async def test_resource_removed_from_node_status_after_plugin_leaves(clusters: SimClusters) -> None:
    cluster = await clusters.start([NodeSpec(name="lpu-1")], device_stop_grace_seconds=0.3)
    plugin = FakePlugin(cluster.state_dir / "nodes" / "lpu-1" / "device-plugins", "lpu.sock", devices(2))
    await plugin.serve()
    try:
        await plugin.register(resource=LPU)
        await eventually(
            lambda: _assert(cluster.get("Node", "lpu-1", "")["status"]["capacity"].get(LPU) == "2")
        )
    finally:
        await plugin.stop()

    def gone() -> None:
        status = cluster.get("Node", "lpu-1", "")["status"]
        assert LPU not in status["capacity"] and LPU not in status["allocatable"]

    await eventually(gone)
