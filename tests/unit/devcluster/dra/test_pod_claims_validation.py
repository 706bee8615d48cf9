"""A pod's `resourceClaims` and its containers' `resources.claims` are checked as kube-apiserver does."""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.validation.objects import validate_object

from ..validation_helpers import pod


def pod_causes(claims: list[dict[str, Any]], container_claims: list[dict[str, Any]]) -> list[tuple[str, str]]:
    container = {"name": "main", "image": "nginx", "resources": {"claims": container_claims}}
    obj = pod(containers=[container], resourceClaims=claims)
    return [(c["field"], c["message"]) for c in validate_object("Pod", obj, True)]


def test_claims_from_a_claim_and_a_template_used_by_a_container_are_accepted() -> None:
    claims = [
        {"name": "gpu", "resourceClaimTemplateName": "single-gpu"},
        {"name": "shared", "resourceClaimName": "shared-gpu"},
    ]
    assert pod_causes(claims, [{"name": "gpu"}, {"name": "shared", "request": "big"}]) == []


def test_a_pod_claim_has_exactly_one_source_shown_as_kube_apiserver_shows_it() -> None:
    assert pod_causes([{"name": "gpu"}], []) == [
        (
            "spec.resourceClaims[0]",
            'Invalid value: core.PodResourceClaim{Name:"gpu", ResourceClaimName:(*string)(nil), '
            "ResourceClaimTemplateName:(*string)(nil)}: must specify one of: "
            "`resourceClaimName`, `resourceClaimTemplateName`",
        )
    ]
    both = pod_causes([{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}], [])
    assert [f for f, _ in both] == ["spec.resourceClaims[0]"]
    assert both[0][1].endswith(
        "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
    )


def test_pod_claim_names_are_unique_labels() -> None:
    claims = [{"name": "gpu", "resourceClaimName": "a"}, {"name": "gpu", "resourceClaimName": "b"}]
    assert pod_causes(claims, []) == [("spec.resourceClaims[1].name", 'Duplicate value: "gpu"')]
    assert [f for f, _ in pod_causes([{"name": "GPU", "resourceClaimName": "a"}], [])] == [
        "spec.resourceClaims[0].name"
    ]


def test_a_container_names_a_claim_of_its_pod_once() -> None:
    path = "spec.containers[0].resources.claims"
    assert pod_causes([], [{"name": "gpu"}]) == [
        (f"{path}[0]", 'Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty')
    ]
    claims = [{"name": "a", "resourceClaimName": "x"}, {"name": "b", "resourceClaimName": "y"}]
    assert pod_causes(claims, [{"name": "c"}]) == [
        (f"{path}[0]", 'Not found: "c": must be one of the names in pod.spec.resourceClaims: a, b')
    ]
    assert pod_causes(claims, [{"name": "a"}, {"name": "a"}, {}]) == [
        (f"{path}[1]", 'Duplicate value: "a"'),
        (f"{path}[2]", "Required value"),
    ]
