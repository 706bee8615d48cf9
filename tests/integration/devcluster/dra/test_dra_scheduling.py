"""The dev cluster's scheduler and claim controller run DRA as upstream: claims from templates, allocation
at scheduling, release after the pod, the scheduler's reasons, and extended resources backed by DRA."""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

from nufi_sandbox.devcluster.sim import NodeSpec
from support.polling import eventually, holds

from ..simcluster import SimCluster, SimClusters
from ..simobjects import LPU, bound, condition, pod

Obj = dict[str, Any]
DRIVER = "lpu.hyperaccel.ai"
GROUP = "resource.k8s.io"
NODES = [
    NodeSpec(name="cpu-node", labels={"role": "cpu"}, device_plugins=False),
    NodeSpec(name="dp-node", labels={"role": "dp"}, capacity={LPU: "4"}, device_plugins=False),
    NodeSpec(name="dra-node", labels={"role": "dra"}, device_plugins=False),
]


def _rt(cluster: SimCluster, plural: str) -> Any:
    return cluster.store.rt(GROUP, "v1", plural)


def create(cluster: SimCluster, plural: str, body: Obj, namespace: str = "default") -> Obj:
    rt = _rt(cluster, plural)
    return cluster.store.create(rt, namespace if rt.namespaced else "", copy.deepcopy(body))


def find(cluster: SimCluster, plural: str, name: str, namespace: str = "default") -> Obj | None:
    return cluster.store.find(_rt(cluster, plural), namespace, name)


def lpu_slice(node: str, count: int, *, numa: tuple[int, ...] = ()) -> Obj:
    devices = [
        {
            "name": f"lpu-{i}",
            "attributes": {"model": {"string": "HA-32"}, "numaNode": {"int": numa[i] if numa else 0}},
            "capacity": {"memory": {"value": "32Gi"}},
        }
        for i in range(count)
    ]
    return {
        "metadata": {"name": f"{node}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def lpu_class(**spec: Any) -> Obj:
    selector = {"cel": {"expression": f"device.driver == '{DRIVER}'"}}
    return {"metadata": {"name": DRIVER}, "spec": {"selectors": [selector], **spec}}


def requests(count: int) -> Obj:
    return {"requests": [{"name": "lpus", "exactly": {"deviceClassName": DRIVER, "count": count}}]}


def claiming_pod(name: str, entry: Obj) -> Obj:
    body = pod(name)
    body["spec"]["resourceClaims"] = [{"name": "lpus", **entry}]
    body["spec"]["containers"][0]["resources"] = {"claims": [{"name": "lpus"}]}
    return body


def results(claim: Obj) -> list[str]:
    return [r["device"] for r in claim["status"]["allocation"]["devices"]["results"]]


async def lpu_cluster(clusters: SimClusters, devices: int, **class_spec: Any) -> SimCluster:
    """The three nodes, the LPU DeviceClass and `devices` LPUs published for the DRA node."""
    cluster = await clusters.start(NODES)
    create(cluster, "deviceclasses", lpu_class(**class_spec))
    create(cluster, "resourceslices", lpu_slice("dra-node", devices))
    return cluster


async def test_a_templates_claim_is_made_for_the_pod_allocated_when_scheduled_and_released_after_it(
    clusters: SimClusters,
) -> None:
    cluster = await clusters.start(NODES)
    create(cluster, "deviceclasses", lpu_class())
    create(cluster, "resourceslices", lpu_slice("dra-node", 4, numa=(0, 1, 1, 2)))
    template: Obj = {"metadata": {"name": "lpu-pair"}, "spec": {"spec": {"devices": requests(2)}}}
    template["spec"]["spec"]["devices"]["constraints"] = [{"matchAttribute": f"{DRIVER}/numaNode"}]
    create(cluster, "resourceclaimtemplates", template)
    created = cluster.create("Pod", claiming_pod("infer", {"resourceClaimTemplateName": "lpu-pair"}))

    assert await eventually(lambda: bound(cluster, "infer")) == "dra-node"
    [status] = cluster.get("Pod", "infer")["status"]["resourceClaimStatuses"]
    claim = find(cluster, "resourceclaims", status["resourceClaimName"])
    assert claim is not None and status["name"] == "lpus"
    assert claim["metadata"]["generateName"] == "infer-lpus-" and len(claim["metadata"]["name"]) == 16
    assert claim["metadata"]["annotations"] == {"resource.kubernetes.io/pod-claim-name": "lpus"}
    [owner] = claim["metadata"]["ownerReferences"]
    assert owner == {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "infer",
        "uid": created["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    # Two devices on one NUMA node: lpu-0 alone on node 0 first, then the pair on node 1.
    assert results(claim) == ["lpu-1", "lpu-2"]
    assert claim["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"] == [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["dra-node"]}]}
    ]
    assert claim["status"]["reservedFor"] == [
        {"resource": "pods", "name": "infer", "uid": created["metadata"]["uid"]}
    ]

    cluster.delete("Pod", "infer")
    await eventually(lambda: holds(find(cluster, "resourceclaims", status["resourceClaimName"]) is None))


async def test_a_named_claim_is_released_and_kept_and_a_missing_one_holds_the_pod(
    clusters: SimClusters,
) -> None:
    cluster = await lpu_cluster(clusters, 2)
    cluster.create("Pod", claiming_pod("early", {"resourceClaimName": "shared"}))
    # PreEnqueue: not tried while the claim does not exist, so no condition and no event yet.
    assert condition(cluster.get("Pod", "early"), "PodScheduled") is None
    create(cluster, "resourceclaims", {"metadata": {"name": "shared"}, "spec": {"devices": requests(1)}})
    assert await eventually(lambda: bound(cluster, "early")) == "dra-node"
    claim = find(cluster, "resourceclaims", "shared")
    assert claim is not None and results(claim) == ["lpu-0"]

    cluster.delete("Pod", "early")

    def released() -> Obj:
        current = find(cluster, "resourceclaims", "shared")
        assert current is not None and "allocation" not in current.get("status", {})
        return current

    claim = await eventually(released)
    assert "reservedFor" not in claim["status"] and not claim["metadata"].get("finalizers")


async def test_a_claim_that_fits_nowhere_leaves_the_pod_pending_with_the_schedulers_reason(
    clusters: SimClusters,
) -> None:
    cluster = await lpu_cluster(clusters, 2)
    create(cluster, "resourceclaims", {"metadata": {"name": "four"}, "spec": {"devices": requests(4)}})
    cluster.create("Pod", claiming_pod("big", {"resourceClaimName": "four"}))
    message = "0/3 nodes are available: 3 cannot allocate all claims."

    def pending() -> None:
        scheduled = condition(cluster.get("Pod", "big"), "PodScheduled")
        assert scheduled is not None and scheduled["status"] == "False"
        assert (scheduled["reason"], scheduled["message"]) == ("Unschedulable", message)

    await eventually(pending)
    [event] = cluster.events_for("big", "FailedScheduling")
    assert event["type"] == "Warning" and event["message"] == message

    # A driver publishing more devices makes room.
    create(cluster, "resourceslices", {**lpu_slice("dp-node", 4), "metadata": {"name": "more"}})
    assert await eventually(lambda: bound(cluster, "big")) == "dp-node"


async def test_a_selector_that_fails_is_a_scheduler_error(clusters: SimClusters) -> None:
    cluster = await clusters.start(NODES)
    broken = lpu_class()
    broken["spec"]["selectors"][0]["cel"]["expression"] = f"device.attributes['{DRIVER}'].vendor == 'x'"
    create(cluster, "deviceclasses", broken)
    create(cluster, "resourceslices", lpu_slice("dra-node", 1))
    create(cluster, "resourceclaims", {"metadata": {"name": "one"}, "spec": {"devices": requests(1)}})
    cluster.create("Pod", claiming_pod("odd", {"resourceClaimName": "one"}))

    def failed() -> None:
        scheduled = condition(cluster.get("Pod", "odd"), "PodScheduled")
        assert scheduled is not None and scheduled["reason"] == "SchedulerError"
        assert scheduled["message"] == (
            f'running "DynamicResources" filter plugin: class {DRIVER}: selector #0: '
            "CEL runtime error: no such key: vendor"
        )

    await eventually(failed)


async def test_an_extended_resource_backed_by_a_device_class_is_served_by_dra_where_no_plugin_serves_it(
    clusters: SimClusters,
) -> None:
    cluster = await lpu_cluster(clusters, 4, extendedResourceName=LPU)
    created = cluster.create("Pod", pod("bridged", limits={LPU: "2"}, nodeSelector={"role": "dra"}))
    cluster.create("Pod", pod("plugin", limits={LPU: "2"}, nodeSelector={"role": "dp"}))
    cluster.create("Pod", pod("nowhere", limits={LPU: "2"}, nodeSelector={"role": "cpu"}))

    assert await eventually(lambda: bound(cluster, "bridged")) == "dra-node"
    status = cluster.get("Pod", "bridged")["status"]["extendedResourceClaimStatus"]
    mapping = {"containerName": "app", "requestName": "container-0-request-0", "resourceName": LPU}
    assert status["requestMappings"] == [mapping]
    claim = find(cluster, "resourceclaims", status["resourceClaimName"])
    assert claim is not None and claim["metadata"]["generateName"] == "bridged-extended-resources-"
    assert claim["metadata"]["annotations"] == {"resource.kubernetes.io/extended-resource-claim": "true"}
    assert claim["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
    assert claim["spec"]["devices"]["requests"] == [
        {
            "name": "container-0-request-0",
            "exactly": {"deviceClassName": DRIVER, "allocationMode": "ExactCount", "count": 2},
        }
    ]
    assert results(claim) == ["lpu-0", "lpu-1"]
    assert [r["request"] for r in claim["status"]["allocation"]["devices"]["results"]] == [
        "container-0-request-0"
    ] * 2
    assert claim["status"]["reservedFor"][0]["name"] == "bridged"
    # The node never advertises what DRA serves.
    assert LPU not in cluster.get("Node", "dra-node", namespace="")["status"]["capacity"]

    # The device plugin's node serves the same limit as today, with no claim.
    assert await eventually(lambda: bound(cluster, "plugin")) == "dp-node"
    assert "extendedResourceClaimStatus" not in cluster.get("Pod", "plugin")["status"]
    # A node with neither keeps the resource fit's words.
    message = (
        f"0/3 nodes are available: 1 Insufficient {LPU}, 2 node(s) didn't match Pod's node affinity/selector."
    )

    def explained() -> None:
        scheduled = condition(cluster.get("Pod", "nowhere"), "PodScheduled")
        assert scheduled is not None and scheduled["message"] == message

    await eventually(explained)

    cluster.create("Pod", pod("by-class", limits={f"deviceclass.resource.kubernetes.io/{DRIVER}": "2"}))
    assert await eventually(lambda: bound(cluster, "by-class")) == "dra-node"
    other = cluster.get("Pod", "by-class")["status"]["extendedResourceClaimStatus"]
    other_claim = find(cluster, "resourceclaims", other["resourceClaimName"])
    assert other_claim is not None and results(other_claim) == ["lpu-2", "lpu-3"]

    cluster.delete("Pod", "bridged")
    await eventually(lambda: holds(find(cluster, "resourceclaims", status["resourceClaimName"]) is None))


async def test_a_finished_pods_generated_claim_is_released_and_deleted_while_the_pod_stays(
    clusters: SimClusters,
) -> None:
    cluster = await lpu_cluster(clusters, 1)
    template = {"metadata": {"name": "one"}, "spec": {"spec": {"devices": requests(1)}}}
    create(cluster, "resourceclaimtemplates", template)
    cluster.create("Pod", claiming_pod("job", {"resourceClaimTemplateName": "one"}))
    assert await eventually(lambda: bound(cluster, "job")) == "dra-node"
    [status] = cluster.get("Pod", "job")["status"]["resourceClaimStatuses"]

    cluster.mutate("Pod", "job", lambda p: p["status"].update(phase="Succeeded"), subresource="status")
    await eventually(lambda: holds(find(cluster, "resourceclaims", status["resourceClaimName"]) is None))
    assert cluster.get("Pod", "job")["status"]["phase"] == "Succeeded"
    # The device is free again for the next pod.
    cluster.create("Pod", claiming_pod("next", {"resourceClaimTemplateName": "one"}))
    assert await eventually(lambda: bound(cluster, "next")) == "dra-node"


async def test_pods_sharing_a_claim_share_its_one_allocation(clusters: SimClusters) -> None:
    cluster = await lpu_cluster(clusters, 2)
    for name in ("first", "second"):
        cluster.create("Pod", claiming_pod(name, {"resourceClaimName": "shared"}))
    # Both wait for the claim, so one scheduling pass places them together.
    create(cluster, "resourceclaims", {"metadata": {"name": "shared"}, "spec": {"devices": requests(1)}})
    assert await eventually(lambda: (bound(cluster, "first"), bound(cluster, "second"))) == ("dra-node",) * 2
    claim = find(cluster, "resourceclaims", "shared")
    assert claim is not None and results(claim) == ["lpu-0"]
    assert sorted(r["name"] for r in claim["status"]["reservedFor"]) == ["first", "second"]


async def test_pods_on_an_extended_resource_spread_over_plugin_and_dra_nodes_alike(
    clusters: SimClusters,
) -> None:
    cluster = await lpu_cluster(clusters, 4, extendedResourceName=LPU)
    placed = []
    for name in ("one", "two", "three", "four"):
        cluster.create("Pod", pod(name, limits={LPU: "1"}))
        placed.append(await eventually(partial(bound, cluster, name)))
    # Four LPUs each: the score counts the DRA node's devices as it counts the plugin node's capacity.
    assert placed == ["dp-node", "dra-node", "dp-node", "dra-node"]
