"""resource.k8s.io/v1 served as kube-apiserver serves it, driven by kubernetes-asyncio and by kubectl:
discovery, CRUD, field selectors, the claim's status subresource, strategic merge, and 422s in its words."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.dra_manifests import REBELLIONS_CLASS
from support.kubectl import KUBECTL, kubectl

Obj = dict[str, Any]
SMP = "application/strategic-merge-patch+json"
CLAIM: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "single-npu"},
    "spec": {"devices": {"requests": [{"name": "npu", "exactly": {"deviceClassName": "npu.rebellions.ai"}}]}},
}
POD_UID = "5f0a2c3e-1d2b-4c5d-8e9f-0a1b2c3d4e5f"


def slice_on(node: str, driver: str = "npu.rebellions.ai") -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{driver}"},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "npu-0", "attributes": {"model": {"string": "ATOM"}}}],
        },
    }


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="dra-api-", simulation=False) as process:
        yield process


def _body(raised: pytest.ExceptionInfo[ApiException]) -> Obj:
    body = raised.value.body
    assert isinstance(body, str | bytes), body
    parsed: Obj = json.loads(body)
    return parsed


async def test_discovery_lists_the_four_kinds_as_upstream(api: client.ApiClient) -> None:
    version = await client.VersionApi(api).get_code()
    assert (version.major, version.minor, version.git_version[:6]) == ("1", "34", "v1.34."), "GA since 1.34"
    found = await client.ResourceV1Api(api).get_api_resources()
    by_name = {r.name: r for r in found.resources}
    assert found.group_version == "resource.k8s.io/v1"
    assert {name: r.namespaced for name, r in by_name.items()} == {
        "deviceclasses": False,
        "resourceclaims": True,
        "resourceclaims/status": True,
        "resourceclaimtemplates": True,
        "resourceslices": False,
    }
    assert all(not r.short_names and not r.categories for r in found.resources)


async def test_slices_are_listed_by_node_and_driver(api: client.ApiClient) -> None:
    dra = client.ResourceV1Api(api)
    for node, driver in (
        ("node-a", "npu.rebellions.ai"),
        ("node-b", "npu.rebellions.ai"),
        ("node-a", "gpu.x.io"),
    ):
        await dra.create_resource_slice(slice_on(node, driver))
    on_a = await dra.list_resource_slice(field_selector="spec.nodeName=node-a")
    assert sorted(s.spec.driver for s in on_a.items) == ["gpu.x.io", "npu.rebellions.ai"]
    rebellions = await dra.list_resource_slice(field_selector="spec.driver=npu.rebellions.ai")
    assert sorted(s.spec.node_name for s in rebellions.items) == ["node-a", "node-b"]


async def test_a_claim_is_defaulted_and_its_status_written_only_through_status(
    api: client.ApiClient, namespace: str
) -> None:
    dra = client.ResourceV1Api(api)
    claim = copy.deepcopy(CLAIM)
    claim["status"] = {"reservedFor": [{"resource": "pods", "name": "p", "uid": POD_UID}]}
    created = await dra.create_namespaced_resource_claim(namespace, claim)
    exactly = created.spec.devices.requests[0].exactly
    assert (exactly.allocation_mode, exactly.count, created.status) == ("ExactCount", 1, None)
    allocation = {
        "devices": {
            "results": [
                {"request": "npu", "driver": "npu.rebellions.ai", "pool": "node-a", "device": "npu-0"}
            ]
        }
    }
    patch = {"status": {"allocation": allocation}, "spec": {"devices": {"requests": []}}}
    written = await dra.patch_namespaced_resource_claim_status(
        "single-npu", namespace, patch, _content_type=SMP
    )
    assert written.status.allocation.devices.results[0].device == "npu-0"
    assert written.spec.devices.requests[0].name == "npu", "a write to /status leaves the spec alone"
    other = "6f0a2c3e-1d2b-4c5d-8e9f-0a1b2c3d4e5f"
    for uid in (POD_UID, other):
        consumer = {"resource": "pods", "name": "p", "uid": uid}
        await dra.patch_namespaced_resource_claim_status(
            "single-npu", namespace, {"status": {"reservedFor": [consumer]}}, _content_type=SMP
        )
    held = await dra.read_namespaced_resource_claim_status("single-npu", namespace)
    assert sorted(c.uid for c in held.status.reserved_for) == [POD_UID, other], "reservedFor merges by uid"
    labelled = await dra.patch_namespaced_resource_claim(
        "single-npu", namespace, {"metadata": {"labels": {"a": "b"}}, "status": None}, _content_type=SMP
    )
    assert labelled.status.allocation is not None, "a write to the claim leaves its status alone"


async def test_refusals_carry_kube_apiservers_status(api: client.ApiClient, namespace: str) -> None:
    dra = client.ResourceV1Api(api)
    bad = copy.deepcopy(CLAIM)
    bad["spec"]["devices"]["requests"][0]["exactly"]["count"] = -1
    with pytest.raises(ApiException) as raised:
        await dra.create_namespaced_resource_claim(namespace, bad)
    status = _body(raised)
    assert raised.value.status == 422 and status["reason"] == "Invalid"
    assert status["message"] == (
        'ResourceClaim.resource.k8s.io "single-npu" is invalid: '
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: -1: must be greater than zero",
            "field": "spec.devices.requests[0].exactly.count",
        }
    ]
    await dra.create_namespaced_resource_claim(namespace, copy.deepcopy(CLAIM))
    reserved = {"status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": POD_UID}]}}
    with pytest.raises(ApiException) as raised:
        await dra.patch_namespaced_resource_claim_status("single-npu", namespace, reserved, _content_type=SMP)
    assert _body(raised)["message"] == (
        'ResourceClaim.resource.k8s.io "single-npu" is invalid: '
        "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"
    )
    more = {"spec": {"devices": {"requests": [{"name": "npu", "exactly": {"count": 2}}]}}}
    with pytest.raises(ApiException) as raised:
        await dra.patch_namespaced_resource_claim("single-npu", namespace, more, _content_type=SMP)
    assert _body(raised)["message"].endswith(": field is immutable")


async def test_a_pod_holds_claims_and_reports_them_in_its_status(
    api: client.ApiClient, namespace: str
) -> None:
    core = client.CoreV1Api(api)
    pod: Obj = {
        "metadata": {"name": "uses-npu"},
        "spec": {
            "resourceClaims": [{"name": "npu", "resourceClaimTemplateName": "one-npu"}],
            "containers": [{"name": "main", "image": "busybox", "resources": {"claims": [{"name": "npu"}]}}],
        },
    }
    await core.create_namespaced_pod(namespace, pod)
    status: Obj = {
        "status": {
            "resourceClaimStatuses": [{"name": "npu", "resourceClaimName": "uses-npu-npu-x7k2p"}],
            "extendedResourceClaimStatus": {
                "resourceClaimName": "uses-npu-extended-resources-abcde",
                "requestMappings": [
                    {"containerName": "main", "resourceName": "rebellions.ai/npu", "requestName": "r0"}
                ],
            },
        }
    }
    written = await core.patch_namespaced_pod_status("uses-npu", namespace, status)
    assert written.status.resource_claim_statuses[0].resource_claim_name == "uses-npu-npu-x7k2p"
    assert written.status.extended_resource_claim_status.request_mappings[0].request_name == "r0"
    pod["metadata"]["name"] = "names-nothing"
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    with pytest.raises(ApiException) as raised:
        await core.create_namespaced_pod(namespace, pod)
    assert _body(raised)["message"] == (
        'Pod "names-nothing" is invalid: spec.containers[0].resources.claims[0]: '
        'Not found: "gpu": must be one of the names in pod.spec.resourceClaims: npu'
    )


@pytest.mark.skipif(
    KUBECTL is None, reason="kubectl is not installed; the kubernetes-asyncio tests cover the API"
)
def test_kubectl_applies_describes_and_deletes_dra_objects(
    cluster: DevClusterProcess, tmp_path: Path
) -> None:
    manifest = tmp_path / "dra.yaml"
    claim = copy.deepcopy(CLAIM)
    claim["metadata"]["namespace"] = "default"
    manifest.write_text(yaml.safe_dump_all([REBELLIONS_CLASS, claim]))
    applied = kubectl(cluster, "apply", "-f", str(manifest))
    assert "deviceclass.resource.k8s.io/npu.rebellions.ai created" in applied
    assert "resourceclaim.resource.k8s.io/single-npu created" in applied
    assert "unchanged" in kubectl(cluster, "apply", "-f", str(manifest)), "the defaulted claim applies again"
    extended = kubectl(
        cluster, "get", "deviceclass", "npu.rebellions.ai", "-o", "jsonpath={.spec.extendedResourceName}"
    )
    assert extended == "rebellions.ai/npu"
    described = kubectl(cluster, "describe", "resourceclaim", "single-npu", "-n", "default")
    assert "Name:" in described and "single-npu" in described and "npu.rebellions.ai" in described
    claim["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "Most"
    claim["metadata"]["name"] = "odd-npu"
    refused = kubectl(cluster, "apply", "-f", "-", stdin=yaml.safe_dump(claim), check=False)
    # kubectl rewords the head of a 422 from apply; the field and the cause are the server's.
    assert refused.startswith('The ResourceClaim "odd-npu" is invalid: ')
    assert (
        'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Most": supported values: '
        '"All", "ExactCount"'
    ) in refused
    deleted = kubectl(cluster, "delete", "-f", str(manifest))
    assert 'deviceclass.resource.k8s.io "npu.rebellions.ai" deleted' in deleted
    gone = kubectl(cluster, "get", "resourceclaim", "single-npu", "-n", "default", check=False)
    assert "NotFound" in gone or "not found" in gone
