"""What a pod asks of DRA: claim names, the class backing an extended resource, the special claim's
requests, generated claim names, and the filter's reasons for claims already allocated."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.dra.pod_claims import (
    ExtendedRequest,
    claim_name,
    classes_by_extended_name,
    extended_requests,
)
from nufi_sandbox.devcluster.dra.scheduling import NOT_AVAILABLE, DraView, filter_node, pod_claims
from nufi_sandbox.devcluster.sim.resourceclaim import generate_name

from .dra_objects import CLASS, claim, device_class, exactly, lpu, node, resource_slice

Obj = dict[str, Any]
LPU = "hyperaccel.ai/lpu"


def _class(name: str, created: str, resource: str = LPU) -> Obj:
    body = device_class(name, extendedResourceName=resource)
    body["metadata"]["creationTimestamp"] = created
    return body


def test_the_newest_class_naming_an_extended_resource_backs_it_ties_going_to_the_first_name() -> None:
    old, new = _class("b-old", "2026-01-01T00:00:00Z"), _class("a-new", "2026-02-01T00:00:00Z")
    assert classes_by_extended_name([old, new])[LPU] is new
    tie_b, tie_a = _class("tie-b", "2026-03-01T00:00:00Z"), _class("tie-a", "2026-03-01T00:00:00Z")
    assert classes_by_extended_name([tie_b, tie_a, old])[LPU] is tie_a
    # Every class is also reachable by its implicit name, with or without the field.
    plain = device_class("plain")
    assert classes_by_extended_name([plain])["deviceclass.resource.kubernetes.io/plain"] is plain


def _pod(*containers: dict[str, str]) -> Obj:
    return {
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {
            "containers": [
                {"name": f"c{i}", "resources": {"limits": limits}} for i, limits in enumerate(containers)
            ]
        },
    }


def test_the_special_claim_asks_per_container_and_resource_only_what_the_node_does_not_advertise() -> None:
    backed = classes_by_extended_name([_class(CLASS, "2026-01-01T00:00:00Z")])
    pod = _pod({"cpu": "1", LPU: "2"}, {f"deviceclass.resource.kubernetes.io/{CLASS}": "1", LPU: "1"})
    assert extended_requests(pod, backed, {}) == [
        ExtendedRequest("c0", "container-0-request-0", LPU, CLASS, 2),
        ExtendedRequest(
            "c1", "container-1-request-0", f"deviceclass.resource.kubernetes.io/{CLASS}", CLASS, 1
        ),
        ExtendedRequest("c1", "container-1-request-1", LPU, CLASS, 1),
    ]
    # A node whose device plugin advertises the name serves it as today.
    assert [r.resource for r in extended_requests(pod, backed, {LPU: Decimal(4)})] == [
        f"deviceclass.resource.kubernetes.io/{CLASS}"
    ]


def test_a_template_entry_names_its_claim_once_the_controller_recorded_it() -> None:
    pod: Obj = {
        "spec": {},
        "status": {"resourceClaimStatuses": [{"name": "lpus", "resourceClaimName": "p-lpus-x2k9q"}]},
    }
    assert claim_name(pod, {"name": "lpus", "resourceClaimTemplateName": "t"}) == "p-lpus-x2k9q"
    assert claim_name(pod, {"name": "other", "resourceClaimTemplateName": "t"}) is None
    assert claim_name(pod, {"name": "named", "resourceClaimName": "shared"}) == "shared"


_NAME = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=120)


@given(_NAME, _NAME)
@example("infer-" * 12, "lpus")
@example("infer", "accelerators-" * 8)
def test_generated_claim_names_fit_and_keep_both_parts(pod: str, entry: str) -> None:
    prefix = generate_name(pod, entry)
    assert prefix.endswith("-") and len(prefix) <= 58  # with five random characters: at most 63
    if len(pod) + len(entry) + 1 <= 57:
        assert prefix == f"{pod}-{entry}-"
    else:
        # Both parts lose their tails in proportion: each keeps at least a fifth of itself.
        assert prefix.startswith(pod[: len(pod) // 5])
        assert entry[: len(entry) // 5] in prefix[len(pod) // 5 :]


def test_an_allocated_claim_keeps_its_pod_to_the_node_it_was_allocated_on() -> None:
    slices = [resource_slice([lpu(0)])]
    allocated = claim(exactly(), name="held")
    allocated["status"] = {
        "allocation": {
            "devices": {"results": []},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["lpu-node-3"]}]}
                ]
            },
        }
    }
    view = DraView.of([device_class()], slices, [allocated])
    pod = {
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"resourceClaims": [{"name": "x", "resourceClaimName": "held"}]},
    }
    claims = pod_claims(view, pod)
    assert claims is not None
    assert filter_node(view, pod, claims, node("lpu-node-1"), {}) == ([NOT_AVAILABLE], None)
    reasons, fit = filter_node(view, pod, claims, node("lpu-node-3"), {})
    assert reasons == [] and fit is not None and fit.allocations == []
    # A claim the pod names that does not exist holds it before any node is tried.
    missing = {**pod, "spec": {"resourceClaims": [{"name": "x", "resourceClaimName": "nope"}]}}
    assert pod_claims(view, missing) is None


def test_a_pod_with_its_special_claim_recorded_uses_that_claim_and_asks_for_no_other() -> None:
    bridge = _class(CLASS, "2026-01-01T00:00:00Z")
    special = claim(exactly(), name="p-extended-resources-x2k9q")
    special["status"] = {"allocation": {"devices": {"results": []}}}
    view = DraView.of([bridge], [resource_slice([lpu(0), lpu(1)])], [special])
    pod = _pod({LPU: "1"})
    pod["status"] = {"extendedResourceClaimStatus": {"resourceClaimName": "p-extended-resources-x2k9q"}}
    claims = pod_claims(view, pod)
    assert claims is not None and claims.allocated == [special] and claims.extended_recorded
    reasons, fit = filter_node(view, pod, claims, node(), {})
    assert reasons == [] and fit is not None and fit.extended == [] and fit.extended_allocation is None
    # Before the special claim exists the same pod asks for one.
    fresh = pod_claims(view, _pod({LPU: "1"}))
    assert fresh is not None
    reasons, fit = filter_node(view, _pod({LPU: "1"}), fresh, node(), {})
    assert fit is not None and [r.request for r in fit.extended] == ["container-0-request-0"]
