"""Quota arithmetic: NuFi's ResourceQuota as written, and what room every quota of a namespace leaves,
counted as kube-apiserver's quota admission counts it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from nufi.messages import Message
from nufi.workloads.deployments.status import PodState, deployment_status
from nufi.workloads.kube_reasons import deployment_failure
from nufi.workloads.labels import MANAGED_BY, PROJECT
from nufi.workloads.quotas.room import (
    DEVICE_TYPES_ANNOTATION,
    QUOTA_NAME,
    QuotaSpec,
    exceeded,
    quota_manifest,
    spec_of,
    tightest,
    written_types,
)

LPU = "requests.hyperaccel.ai/lpu"


def quota(name: str, hard: dict[str, str], used: dict[str, str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"metadata": {"name": name}, "spec": {"hard": hard}}
    if used is not None:
        body["status"] = {"hard": hard, "used": used}
    return body


def test_the_manifest_limits_devices_in_the_requests_form_with_storage_and_pods() -> None:
    spec = QuotaSpec(devices={"lpu": 4, "gpu": 0}, storage="100Gi", pods=20)
    body = quota_manifest("team-a", spec, {"lpu": "hyperaccel.ai/lpu", "gpu": "nvidia.com/gpu"})
    assert body["metadata"]["name"] == QUOTA_NAME
    assert body["metadata"]["labels"] == {MANAGED_BY: "nufi", PROJECT: "team-a"}
    assert body["spec"]["hard"] == {
        LPU: "4",
        "requests.nvidia.com/gpu": "0",
        "requests.storage": "100Gi",
        "pods": "20",
    }
    # Read back, it is the spec written: which entry is which type comes from the annotation.
    assert written_types(body) == {"gpu": "nvidia.com/gpu", "lpu": "hyperaccel.ai/lpu"}
    assert spec_of(body) == spec


def test_an_annotation_edited_into_nonsense_names_no_type() -> None:
    body = quota_manifest("team-a", QuotaSpec(devices={"lpu": 4}), {"lpu": "hyperaccel.ai/lpu"})
    body["metadata"]["annotations"][DEVICE_TYPES_ANNOTATION] = "[not, json"
    assert written_types(body) == {} and spec_of(body).devices == {}


def test_any_quota_of_the_namespace_refuses_what_would_pass_its_used_over_hard() -> None:
    ours = quota(QUOTA_NAME, {LPU: "4"}, {LPU: "1"})
    theirs = quota("team-cap", {LPU: "2", "pods": "10"}, {LPU: "1", "pods": "3"})
    quotas = [ours, theirs]
    assert exceeded(quotas, LPU, 1) is None
    # Ours has room for 3; the other quota (written by someone else) for only 1: it decides.
    refused = exceeded(quotas, LPU, 2)
    assert refused is not None and (refused.quota, refused.hard, refused.used) == (
        "team-cap",
        Decimal(2),
        Decimal(1),
    )
    assert exceeded(quotas, LPU, 0) is None
    limit = tightest(quotas, LPU)
    assert limit is not None and (limit.quota, limit.room) == ("team-cap", Decimal(1))
    # A resource no quota limits is never refused.
    assert exceeded(quotas, "requests.nvidia.com/gpu", 100) is None
    assert tightest(quotas, "requests.nvidia.com/gpu") is None


def test_a_quota_the_controller_has_not_counted_yet_counts_nothing_used() -> None:
    fresh = quota(QUOTA_NAME, {LPU: "2"})
    assert exceeded([fresh], LPU, 2) is None
    assert exceeded([fresh], LPU, 3) is not None


def test_a_deployment_whose_pods_a_quota_refuses_is_pending_in_accelerator_words() -> None:
    said = (
        'pods "llm-7d9c-abcde" is forbidden: exceeded quota: nufi-accelerators, requested: '
        f"pods=1,{LPU}=1, used: pods=4,{LPU}=4, limited: pods=20,{LPU}=4"
    )
    condition = {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": said}
    status, reason = deployment_status(2, [], [condition])
    assert status == "Pending"
    assert reason == Message(
        "workload.quota_exceeded",
        {
            "quota": QUOTA_NAME,
            "resource": "hyperaccel.ai/lpu",
            "what": Message("quota.resource.other", {"resource": "hyperaccel.ai/lpu"}),
            "limit": "4",
            "used": "4",
            "kubernetes": said,
        },
    )
    assert reason.text("en") == "project quota: hyperaccel.ai/lpu limited to 4, 4 in use"
    # With one pod Ready and the next refused, it is Degraded for the same reason.
    ready = PodState("llm-1", "lpu-node-1", "Running", True, False, None, None, {"hyperaccel.ai/lpu": 1})
    assert deployment_status(2, [ready], [condition]) == ("Degraded", reason)


def test_the_resource_named_is_the_one_over_its_limit() -> None:
    said = (
        "exceeded quota: q, requested: pods=1,requests.storage=10Gi, used: pods=1,requests.storage=95Gi, "
        "limited: pods=20,requests.storage=100Gi"
    )
    reason = deployment_failure({"type": "ReplicaFailure", "status": "True", "message": said})
    assert (reason.params["resource"], reason.params["limit"], reason.params["used"]) == (
        "storage",
        "100Gi",
        "95Gi",
    )
