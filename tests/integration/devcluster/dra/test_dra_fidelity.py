"""Upstream-shaped DRA objects replayed against one dev cluster process with its simulation on, each
outcome read back both by kubectl (a subprocess) and by kubernetes-asyncio's typed models.

The vendors' DeviceClasses are their charts' own; the slices are what each driver publishes (the mock
LPU's are built by its driver's code), written through the API as a driver writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.dra_manifests import NVIDIA_SELECTOR
from support.kubectl import KUBECTL, columns, kubectl, row
from support.polling import until

from .fidelity_objects import (
    LPU,
    LPU_CLASS,
    NODES,
    NVIDIA,
    REBELLIONS,
    VENDOR_CLASSES,
    as_yaml,
    claim,
    exactly,
    lpu_slices,
    model_is,
    nvidia_slice,
    pod,
    rebellions_slice,
)

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")

SPECIAL_CLAIM = "resource.kubernetes.io/extended-resource-claim"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(NODES, prefix="drafid-") as process:
        kubectl(process, "apply", "-f", "-", stdin=VENDOR_CLASSES + "---\n" + LPU_CLASS)
        slices = [nvidia_slice(), rebellions_slice(), *lpu_slices()]
        kubectl(process, "create", "-f", "-", stdin=as_yaml(*slices))
        yield process


async def scheduled(api: client.ApiClient, namespace: str, name: str) -> str:
    async def node() -> str | None:
        read = await client.CoreV1Api(api).read_namespaced_pod(name, namespace)
        return str(read.spec.node_name) if read.spec.node_name else None

    return await until(node, what=f"pod {name} scheduled")


async def allocated(api: client.ApiClient, namespace: str, name: str) -> Any:
    """The claim (a typed V1ResourceClaim) once it is allocated and reserved."""

    async def read() -> Any:
        found = await client.ResourceV1Api(api).read_namespaced_resource_claim(name, namespace)
        return found if found.status and found.status.allocation and found.status.reserved_for else None

    return await until(read, what=f"claim {name} allocated")


def devices(typed_claim: Any) -> list[str]:
    return [r.device for r in typed_claim.status.allocation.devices.results]


async def test_vendor_classes_and_driver_slices_read_back_as_published(
    cluster: DevClusterProcess, api: client.ApiClient
) -> None:
    table = kubectl(cluster, "get", "deviceclasses")
    assert columns(table) == ["NAME", "AGE"]
    assert [row(table, name)[0] for name in (NVIDIA, REBELLIONS, LPU)] == [NVIDIA, REBELLIONS, LPU]
    declared = kubectl(cluster, "get", "deviceclass", NVIDIA, "-o", "jsonpath={.spec.extendedResourceName}")
    assert declared == "nvidia.com/gpu"
    classes = {c.metadata.name: c for c in (await client.ResourceV1Api(api).list_device_class()).items}
    assert classes[NVIDIA].spec.selectors[0].cel.expression == NVIDIA_SELECTOR
    assert classes[REBELLIONS].spec.extended_resource_name == "rebellions.ai/npu"
    assert classes[LPU].spec.extended_resource_name == "hyperaccel.ai/lpu"

    slices = kubectl(cluster, "get", "resourceslices")
    assert row(slices, f"gpu-node-{NVIDIA}")[1:4] == ["gpu-node", NVIDIA, "gpu-node"]
    typed = await client.ResourceV1Api(api).list_resource_slice(field_selector="spec.nodeName=lpu-node-b")
    [lpu_b] = typed.items
    assert lpu_b.spec.pool.name == "lpu-node-b" and len(lpu_b.spec.devices) == 4
    assert lpu_b.spec.devices[0].capacity["memory"].value == "64Gi"
    assert lpu_b.spec.devices[0].attributes["firmwareVersion"].version == "2.1.0"


async def test_two_devices_of_one_claim_share_a_numa_node(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    only_32g = model_is("lpu-32g")
    single = claim("single", {"name": "lpu", "exactly": exactly(1, LPU, only_32g)})
    pair = claim(
        "pair",
        {"name": "lpus", "exactly": exactly(2, LPU, only_32g)},
        constraints=[{"requests": ["lpus"], "matchAttribute": f"{LPU}/numaNode"}],
    )
    first = pod("first", {"lpu": {"resourceClaimName": "single"}})
    kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=as_yaml(single, pair, first))
    assert await scheduled(api, namespace, "first") == "lpu-node-a"
    second = pod("second", {"lpus": {"resourceClaimName": "pair"}})
    kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=as_yaml(second))
    assert await scheduled(api, namespace, "second") == "lpu-node-a"

    # lpu0 went first; lpu1 is its NUMA neighbour, so only lpu2 and lpu3 make a pair on one node.
    assert devices(await allocated(api, namespace, "single")) == ["lpu0"]
    assert devices(await allocated(api, namespace, "pair")) == ["lpu2", "lpu3"]
    table = kubectl(cluster, "-n", namespace, "get", "resourceclaims")
    assert [row(table, name)[1] for name in ("pair", "single")] == ["allocated,reserved"] * 2
    shown = kubectl(cluster, "-n", namespace, "get", "resourceclaim", "pair", "-o", "json")
    assert [r["device"] for r in json.loads(shown)["status"]["allocation"]["devices"]["results"]] == [
        "lpu2",
        "lpu3",
    ]


async def test_first_available_falls_to_the_alternative_that_fits(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    only_64g = model_is("lpu-64g")
    alternatives = [
        {"name": "eight", **exactly(8, LPU, only_64g)},
        {"name": "one", **exactly(1, LPU, only_64g)},
    ]
    await client.ResourceV1Api(api).create_namespaced_resource_claim(
        namespace, claim("fallback", {"name": "lpus", "firstAvailable": alternatives})
    )
    await client.CoreV1Api(api).create_namespaced_pod(
        namespace, pod("runner", {"lpus": {"resourceClaimName": "fallback"}})
    )
    assert await scheduled(api, namespace, "runner") == "lpu-node-b"
    [result] = (await allocated(api, namespace, "fallback")).status.allocation.devices.results
    assert (result.request, result.driver, result.pool) == ("lpus/one", LPU, "lpu-node-b")
    path = "jsonpath={.status.allocation.devices.results[*].request}"
    assert kubectl(cluster, "-n", namespace, "get", "resourceclaim", "fallback", "-o", path) == "lpus/one"


async def test_a_templates_claim_selects_by_memory_and_goes_with_its_pod(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    roomy = f"device.capacity['{LPU}'].memory.compareTo(quantity('48Gi')) >= 0"
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "roomy-lpu"},
        "spec": {"spec": {"devices": {"requests": [{"name": "lpu", "exactly": exactly(1, LPU, roomy)}]}}},
    }
    infer = pod("infer", {"lpu": {"resourceClaimTemplateName": "roomy-lpu"}})
    kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=as_yaml(template, infer))
    assert await scheduled(api, namespace, "infer") == "lpu-node-b"
    read = await client.CoreV1Api(api).read_namespaced_pod("infer", namespace)
    [status] = read.status.resource_claim_statuses
    assert status.name == "lpu" and status.resource_claim_name.startswith("infer-lpu-")
    made = await allocated(api, namespace, status.resource_claim_name)
    [owner] = made.metadata.owner_references
    assert (owner.kind, owner.name, owner.uid, owner.controller) == ("Pod", "infer", read.metadata.uid, True)
    assert row(kubectl(cluster, "-n", namespace, "get", "resourceclaims"), made.metadata.name)[1] == (
        "allocated,reserved"
    )

    kubectl(cluster, "-n", namespace, "delete", "pod", "infer", "--wait=false")

    async def gone() -> bool:
        listed = await client.ResourceV1Api(api).list_namespaced_resource_claim(namespace)
        return not listed.items

    await until(gone, what="the pod's claim deleted with it")
    assert "No resources found" in kubectl(cluster, "-n", namespace, "get", "resourceclaims", check=False)


async def test_a_claim_no_node_can_satisfy_leaves_the_pod_pending_with_the_schedulers_reason(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    # Two whole GPUs on the node: NVIDIA's class leaves the MIG slice out, so three never fit.
    three = claim("three-gpus", {"name": "gpus", "exactly": exactly(3, NVIDIA)})
    greedy = pod("greedy", {"gpus": {"resourceClaimName": "three-gpus"}})
    kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=as_yaml(three, greedy))

    async def refused() -> Any:
        read = await client.CoreV1Api(api).read_namespaced_pod("greedy", namespace)
        return next((c for c in read.status.conditions or [] if c.type == "PodScheduled"), None)

    condition = await until(refused, what="the scheduler's verdict")
    assert (condition.status, condition.reason) == ("False", "Unschedulable")
    assert condition.message == "0/4 nodes are available: 4 cannot allocate all claims."
    events = kubectl(cluster, "-n", namespace, "get", "events")
    assert row(events, events.splitlines()[1].split()[0])[1:4] == [
        "Warning",
        "FailedScheduling",
        "pod/greedy",
    ]
    assert events.splitlines()[1].endswith(condition.message)
    assert row(kubectl(cluster, "-n", namespace, "get", "resourceclaims"), "three-gpus")[1] == "pending"


def _quota(hard: dict[str, str]) -> str:
    return as_yaml(
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "devices"}, "spec": {"hard": hard}}
    )


async def test_an_extended_resource_limit_gets_its_special_claim_on_a_dra_node_charged_once(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    npu, devices_key = "rebellions.ai/npu", f"{REBELLIONS}.deviceclass.resource.k8s.io/devices"
    # Room for two: were the special claim charged again for what the pod paid, it could not be made.
    quota = _quota({f"requests.{npu}": "2", devices_key: "2"})
    kubectl(
        cluster,
        "-n",
        namespace,
        "create",
        "-f",
        "-",
        stdin=quota + "---\n" + as_yaml(pod("npus", limits={npu: "2"})),
    )
    assert await scheduled(api, namespace, "npus") == "npu-node"

    async def recorded() -> Any:
        read = await client.CoreV1Api(api).read_namespaced_pod("npus", namespace)
        return read if read.status.extended_resource_claim_status else None

    read = await until(recorded, what="the special claim recorded on the pod")
    status = read.status.extended_resource_claim_status
    [mapping] = status.request_mappings
    assert (mapping.container_name, mapping.request_name, mapping.resource_name) == (
        "app",
        "container-0-request-0",
        npu,
    )
    special = await allocated(api, namespace, status.resource_claim_name)
    assert special.metadata.name.startswith("npus-extended-resources-")
    assert special.metadata.annotations == {SPECIAL_CLAIM: "true"}
    assert [r.driver for r in special.status.allocation.devices.results] == [REBELLIONS] * 2
    assert special.metadata.owner_references[0].uid == read.metadata.uid

    used = kubectl(cluster, "-n", namespace, "get", "quota", "devices", "-o", "jsonpath={.status.used}")
    assert json.loads(used) == {devices_key: "2", f"requests.{npu}": "2"}
    capacity = kubectl(cluster, "get", "node", "npu-node", "-o", "jsonpath={.status.capacity}")
    assert npu not in json.loads(capacity)
    claims = kubectl(cluster, "-n", namespace, "get", "resourceclaims")
    assert row(claims, special.metadata.name)[1] == "allocated,reserved"

    # The pod owns its special claim: deleting the pod takes the claim, and frees the quota.
    kubectl(cluster, "-n", namespace, "delete", "pod", "npus", "--wait=false")

    async def freed() -> bool:
        quota = await client.CoreV1Api(api).read_namespaced_resource_quota("devices", namespace)
        listed = await client.ResourceV1Api(api).list_namespaced_resource_claim(namespace)
        return not listed.items and quota.status.used == {devices_key: "0", f"requests.{npu}": "0"}

    await until(freed, what="the special claim gone with its pod")


async def test_claims_past_a_quota_are_refused_with_the_apiservers_message(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    gpus, npus = f"{NVIDIA}.deviceclass.resource.k8s.io/devices", "requests.rebellions.ai/npu"
    kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=_quota({gpus: "1", npus: "1"}))
    two_gpus = claim("two-gpus", {"name": "gpus", "exactly": exactly(2, NVIDIA)})
    out = kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=as_yaml(two_gpus), check=False)
    assert out.strip() == (
        'Error from server (Forbidden): error when creating "STDIN": '
        'resourceclaims.resource.k8s.io "two-gpus" is forbidden: '
        f"exceeded quota: devices, requested: {gpus}=2, used: {gpus}=0, limited: {gpus}=1"
    )
    # A claim by the class is charged under the class's extended resource name too.
    two_npus = claim("two-npus", {"name": "npus", "exactly": exactly(2, REBELLIONS)})
    with pytest.raises(ApiException) as refused:
        await client.ResourceV1Api(api).create_namespaced_resource_claim(namespace, two_npus)
    assert refused.value.status == 403
    assert json.loads(str(refused.value.body))["message"] == (
        'resourceclaims.resource.k8s.io "two-npus" is forbidden: exceeded quota: devices, '
        f"requested: {npus}=2, used: {npus}=0, limited: {npus}=1"
    )
    table = kubectl(cluster, "-n", namespace, "get", "quota", "devices")
    assert row(table, "devices")[2:] == [f"{gpus}:", "0/1,", f"{npus}:", "0/1"]
    typed = await client.CoreV1Api(api).read_namespaced_resource_quota("devices", namespace)
    assert typed.status.used == {gpus: "0", npus: "0"}
