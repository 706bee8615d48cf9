"""The simulated workload controllers: Deployments, ReplicaSets, StatefulSets and DaemonSets."""

from __future__ import annotations

import pytest

from nufi_sandbox.devcluster.sim import NodeSpec, TaintSpec
from support.polling import eventually, holds, present

from .simcluster import SimCluster, SimClusters
from .simobjects import LPU, Obj, condition, live, running_ready, workload


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
        lambda: holds(len([p for p in cluster.list_of("Pod", app="api") if running_ready(p)]) == 2)
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
        lambda: holds(len([p for p in cluster.list_of("Pod", app="batch") if running_ready(p)]) == 1)
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
    first = await eventually(lambda: present(cluster.find("Pod", "db-0")))
    assert first["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == "db-0"
    assert first["metadata"]["labels"]["controller-revision-hash"].startswith("db-")
    assert first["spec"]["hostname"] == "db-0" and first["spec"]["subdomain"] == "db"
    await eventually(lambda: holds(cluster.get("Pod", "db-0")["status"].get("phase") == "Running"))
    # db-0 runs but is not Ready: db-1 must wait. A spec change the controller is sure to sync, made
    # once db-0 runs, proves the controller has looked at the set since then.
    changed = cluster.mutate("StatefulSet", "db", lambda sts: sts["spec"].update(revisionHistoryLimit=5))
    generation = changed["metadata"]["generation"]
    assert generation > 1
    await eventually(
        lambda: holds(cluster.get("StatefulSet", "db")["status"].get("observedGeneration") == generation)
    )
    assert cluster.find("Pod", "db-1") is None

    cluster.set_pod_condition("db-0", gate, "True")
    await eventually(lambda: present(cluster.find("Pod", "db-1")))
    assert cluster.find("Pod", "db-2") is None
    cluster.set_pod_condition("db-1", gate, "True")
    await eventually(lambda: present(cluster.find("Pod", "db-2")))
    await eventually(lambda: holds(cluster.get("Pod", "db-2")["status"].get("phase") == "Running"))
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
