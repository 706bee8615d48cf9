"""The simulated endpointslice controller: endpoints follow pod readiness and termination."""

from __future__ import annotations

from nufi_sandbox.devcluster.sim import NodeSpec
from support.polling import eventually, holds

from .simcluster import SimCluster, SimClusters
from .simobjects import Obj, pod, workload


def _endpoints(cluster: SimCluster, service: str) -> dict[str, Obj]:
    slices = cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": service})
    assert len(slices) == 1
    return {e["targetRef"]["name"]: e for e in slices[0].get("endpoints") or []}


def _assert_llm_slice(cluster: SimCluster, svc: Obj) -> Obj:
    """The one slice of service `llm`: named, labelled and owned as the real controller does."""
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
    return slice_


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
    slice_ = _assert_llm_slice(cluster, svc)

    cluster.set_pod_condition("llm-a", gate, "True")
    await eventually(
        lambda: holds(
            _endpoints(cluster, "llm")["llm-a"]["conditions"]
            == {"ready": True, "serving": True, "terminating": False}
        )
    )
    cluster.delete("Pod", "llm-a")
    # During the grace period the pod still serves but takes no new traffic.
    await eventually(
        lambda: holds(
            _endpoints(cluster, "llm")["llm-a"]["conditions"]
            == {"ready": False, "serving": True, "terminating": True}
        )
    )
    await eventually(lambda: holds(_endpoints(cluster, "llm") == {}), within=5)
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
        lambda: holds(cluster.list_of("EndpointSlice", **{"kubernetes.io/service-name": "peers"}) == [])
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
