"""ResourceQuota through the simulated controllers: what a ReplicaSet, a Deployment and a StatefulSet
show when quota refuses their pods, and how they recover once it is raised."""

from __future__ import annotations

import re

from support.polling import eventually

from .simcluster import SimCluster, SimClusters
from .simobjects import LPU, Obj, condition, live, workload

REFUSAL = re.compile(
    rf'pods "web-[a-z0-9]+-[a-z0-9]{{5}}" is forbidden: exceeded quota: team, '
    rf"requested: requests\.{re.escape(LPU)}=1, used: requests\.{re.escape(LPU)}=2, "
    rf"limited: requests\.{re.escape(LPU)}=2"
)


def lpu_workload(name: str, replicas: int) -> Obj:
    body = workload(name, replicas)
    body["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {LPU: "1"}}
    return body


def quota(cluster: SimCluster, lpus: str) -> None:
    hard = {f"requests.{LPU}": lpus}
    if cluster.find("ResourceQuota", "team") is None:
        cluster.create("ResourceQuota", {"metadata": {"name": "team"}, "spec": {"hard": hard}})
    else:
        cluster.mutate("ResourceQuota", "team", lambda q: q["spec"].update(hard=hard))


async def test_refused_replicas_show_on_the_replica_set_and_deployment_and_return(
    clusters: SimClusters,
) -> None:
    cluster = await clusters.start()
    quota(cluster, "2")
    cluster.create("Deployment", lpu_workload("web", 3))

    def refused() -> tuple[Obj, Obj]:
        replica_sets = cluster.list_of("ReplicaSet")
        assert len(replica_sets) == 1
        rs = replica_sets[0]
        failure = condition(rs, "ReplicaFailure")
        assert failure is not None and failure["status"] == "True" and failure["reason"] == "FailedCreate"
        assert REFUSAL.fullmatch(failure["message"]), failure["message"]
        on_deployment = condition(cluster.get("Deployment", "web"), "ReplicaFailure")
        assert on_deployment is not None and on_deployment["message"] == failure["message"]
        return rs, failure

    rs, _ = await eventually(refused)
    assert len(live(cluster.list_of("Pod", app="web"))) == 2
    [event, *_] = cluster.events_for(rs["metadata"]["name"], "FailedCreate")
    assert event["type"] == "Warning" and event["source"]["component"] == "replicaset-controller"
    assert event["message"].startswith("Error creating: ")
    assert REFUSAL.fullmatch(event["message"].removeprefix("Error creating: "))
    assert cluster.get("ResourceQuota", "team")["status"]["used"] == {f"requests.{LPU}": "2"}

    quota(cluster, "3")

    def recovered() -> None:
        assert len(live(cluster.list_of("Pod", app="web"))) == 3
        assert condition(cluster.get("ReplicaSet", rs["metadata"]["name"]), "ReplicaFailure") is None
        assert condition(cluster.get("Deployment", "web"), "ReplicaFailure") is None

    # The controller's backoff is bounded by its 5 s resync, so the replica comes back within that.
    await eventually(recovered, within=6.0)


async def test_stateful_set_records_its_refused_pod(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    quota(cluster, "0")
    sts = lpu_workload("db", 1)
    sts["spec"].update(serviceName="db", podManagementPolicy="Parallel")
    cluster.create("StatefulSet", sts)

    def refused() -> Obj:
        events = cluster.events_for("db", "FailedCreate")
        assert events
        return events[0]

    event = await eventually(refused)
    assert event["type"] == "Warning" and event["source"]["component"] == "statefulset-controller"
    assert event["message"] == (
        'create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: exceeded quota: team, '
        f"requested: requests.{LPU}=1, used: requests.{LPU}=0, limited: requests.{LPU}=0"
    )
    # The real statefulset-controller sets no condition for this.
    assert not (cluster.get("StatefulSet", "db").get("status") or {}).get("conditions")
    quota(cluster, "1")

    def created() -> None:
        assert cluster.find("Pod", "db-0") is not None

    await eventually(created, within=6.0)
