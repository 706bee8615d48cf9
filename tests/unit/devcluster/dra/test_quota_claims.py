"""What a ResourceClaim charges against a quota, case for case with `resource_claims_test.go`."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.quota import amounts
from nufi_sandbox.devcluster.quota.device_claims import DeviceClaimEvaluator
from nufi_sandbox.devcluster.quota.evaluators import PodEvaluator, evaluators_for
from nufi_sandbox.devcluster.validation.quota_spec import resource_quota_causes

NOW = datetime(2026, 1, 1, tzinfo=UTC)
IMPLICIT = "requests.deviceclass.resource.kubernetes.io/gpu"
DEVICES = "gpu.deviceclass.resource.k8s.io/devices"
EXPLICIT = "requests.example.com/gpu"
Obj = dict[str, Any]


def exactly(count: int = 1, klass: str = "gpu", **extra: Any) -> Obj:
    return {"deviceClassName": klass, "allocationMode": "ExactCount", "count": count, **extra}


def claim(*requests: Obj, owner: str = "", name: str = "foo") -> Obj:
    meta: Obj = {"name": name, "namespace": "ns"}
    if owner:
        meta["annotations"] = {"resource.kubernetes.io/extended-resource-claim": "true"}
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": "uid", "controller": True}
        ]
    named = [{"name": f"req-{i}", **r} for i, r in enumerate(requests)]
    return {"metadata": meta, "spec": {"devices": {"requests": named}}}


def one(**request: Any) -> Obj:
    return claim(request)


class Cluster:
    """Class `gpu` declares `example.com/gpu`; pods by name, as the evaluator's lookup sees them."""

    def __init__(self, *pods: Obj) -> None:
        self.pods = {p["metadata"]["name"]: p for p in pods}

    def extended_resource_name(self, device_class: str) -> str | None:
        return "example.com/gpu" if device_class == "gpu" else None

    def pod(self, namespace: str, name: str) -> Obj | None:
        return self.pods.get(name)


def pod(name: str, containers: list[Obj], inits: list[Obj] | None = None, status: Obj | None = None) -> Obj:
    def box(requests: Obj, **extra: Any) -> Obj:
        return {"name": "c", "resources": {"requests": requests}, **extra}

    spec = {"containers": [box(**c) for c in containers], "initContainers": [box(**c) for c in inits or []]}
    return {"metadata": {"name": name, "uid": "uid"}, "spec": spec, "status": status or {}}


def gpus(explicit: int = 0, implicit: int = 0, **extra: Any) -> Obj:
    requests = {}
    if explicit:
        requests["example.com/gpu"] = str(explicit)
    if implicit:
        requests["deviceclass.resource.kubernetes.io/gpu"] = str(implicit)
    return {"requests": requests, **extra}


NAMED_FOO = {"extendedResourceClaimStatus": {"resourceClaimName": "foo"}}


def usage(obj: Obj, lookup: Any = None) -> dict[str, str]:
    evaluator = DeviceClaimEvaluator(lookup) if lookup is not None else DeviceClaimEvaluator()
    return amounts.as_text(evaluator.usage(obj, NOW))


def test_an_exact_request_charges_its_count_under_the_devices_and_the_implicit_name() -> None:
    assert usage(one(exactly=exactly())) == {
        "count/resourceclaims.resource.k8s.io": "1",
        DEVICES: "1",
        IMPLICIT: "1",
    }
    five = claim(*[{"exactly": exactly()}] * 5)
    assert usage(five)[DEVICES] == usage(five)[IMPLICIT] == "5"
    assert usage(one(exactly=exactly(5)))[DEVICES] == "5"
    # Admins are not exempt from quota; a count left out is the default one.
    assert usage(one(exactly=exactly(adminAccess=True)))[DEVICES] == "1"
    assert usage(one(exactly={"deviceClassName": "gpu"}))[DEVICES] == "1"


def test_all_charges_the_most_a_claim_can_hold() -> None:
    assert usage(one(exactly={"deviceClassName": "gpu", "allocationMode": "All"}))[DEVICES] == "32"


def test_first_available_charges_the_largest_alternative_of_each_class() -> None:
    two_or_one = one(firstAvailable=[{"name": "a", **exactly(2)}, {"name": "b", **exactly(1)}])
    assert usage(two_or_one)[DEVICES] == usage(two_or_one)[IMPLICIT] == "2"
    one_or_all = one(
        firstAvailable=[
            {"name": "a", **exactly(1)},
            {"name": "b", "deviceClassName": "gpu", "allocationMode": "All"},
        ]
    )
    assert usage(one_or_all)[DEVICES] == "32"
    gpu_or_tpu = one(
        firstAvailable=[
            {"name": "a", **exactly(1)},
            {"name": "b", "deviceClassName": "tpu", "allocationMode": "All"},
        ]
    )
    assert usage(gpu_or_tpu) == {
        "count/resourceclaims.resource.k8s.io": "1",
        DEVICES: "1",
        IMPLICIT: "1",
        "tpu.deviceclass.resource.k8s.io/devices": "32",
        "requests.deviceclass.resource.kubernetes.io/tpu": "32",
    }


def test_a_class_with_an_extended_resource_name_is_charged_under_it_too() -> None:
    assert usage(one(exactly=exactly(3)), Cluster())[EXPLICIT] == "3"


def test_the_special_claim_is_not_charged_again_for_the_name_the_pod_asked_by() -> None:
    by_explicit = pod("p", [{"requests": {"example.com/gpu": "1"}}], status=NAMED_FOO)
    by_implicit = pod("p", [gpus(implicit=1)], status=NAMED_FOO)
    special = claim({"exactly": exactly()}, owner="p")
    base = {"count/resourceclaims.resource.k8s.io": "1", DEVICES: "1"}
    assert usage(special, Cluster(by_explicit)) == {**base, IMPLICIT: "1"}
    assert usage(special, Cluster(by_implicit)) == {**base, EXPLICIT: "1"}
    # The same claim as an ordinary one, or owned by another pod, pays under every name.
    assert usage(claim({"exactly": exactly()}), Cluster(by_explicit)) == {
        **base,
        IMPLICIT: "1",
        EXPLICIT: "1",
    }
    stranger = copy.deepcopy(by_explicit)
    stranger["metadata"]["uid"] = "another"
    assert usage(special, Cluster(stranger)) == {**base, IMPLICIT: "1", EXPLICIT: "1"}
    elsewhere = pod("p", [{"requests": {"example.com/gpu": "1"}}], status={"extendedResourceClaimStatus": {}})
    elsewhere["status"]["extendedResourceClaimStatus"]["resourceClaimName"] = "bar"
    assert usage(special, Cluster(elsewhere)) == {**base, IMPLICIT: "1", EXPLICIT: "1"}


def test_a_pod_asking_by_both_names_cancels_one_of_each() -> None:
    hybrid = pod("p", [gpus(explicit=1, implicit=1)], inits=[gpus(explicit=1, implicit=1)], status=NAMED_FOO)
    special = claim({"exactly": exactly()}, {"exactly": exactly()}, owner="p")
    expected = {"count/resourceclaims.resource.k8s.io": "1", DEVICES: "2", IMPLICIT: "1", EXPLICIT: "1"}
    assert usage(special, Cluster(hybrid)) == expected
    # An init container's own request is paid by the max rule: it adds only what exceeds the rest.
    no_status = pod("p", [gpus(implicit=1)], inits=[gpus(explicit=1)])
    assert usage(special, Cluster(no_status)) == expected
    inits = pod(
        "p", [gpus(explicit=1, implicit=1)], inits=[gpus(explicit=1, implicit=1)] * 2, status=NAMED_FOO
    )
    assert usage(special, Cluster(inits)) == expected


def test_a_sidecar_is_paid_like_a_container() -> None:
    sidecar = pod("p", [gpus(explicit=1)], inits=[gpus(explicit=1, restartPolicy="Always")], status=NAMED_FOO)
    special = claim({"exactly": exactly()}, {"exactly": exactly()}, owner="p")
    assert usage(special, Cluster(sidecar))[IMPLICIT] == "2"
    assert EXPLICIT not in usage(special, Cluster(sidecar))


def test_claims_match_their_own_names_and_the_bridged_ones() -> None:
    supported = ["count/resourceclaims.resource.k8s.io", DEVICES, EXPLICIT, IMPLICIT]
    assert DeviceClaimEvaluator().matching(supported) == supported
    unsupported = [
        "resourceclaims",
        "storage",
        "ephemeral-storage",
        "bronze.deviceclass.resource.k8s.io/storage",
        "gpu.storage.k8s.io/requests.storage",
    ]
    assert DeviceClaimEvaluator().matching(unsupported) == []
    groups = {e.group_resource for e in evaluators_for([DEVICES])}
    assert groups == {("resource.k8s.io", "resourceclaims")}


def test_a_pod_asking_for_a_class_by_its_implicit_name_is_charged_for_it() -> None:
    limits = {"deviceclass.resource.kubernetes.io/gpu": "2"}
    spec = {"containers": [{"name": "c", "resources": {"limits": limits, "requests": limits}}]}
    assert amounts.as_text(PodEvaluator().usage({"spec": spec}, NOW))[IMPLICIT] == "2"
    assert PodEvaluator().matching([IMPLICIT, DEVICES]) == [IMPLICIT]


@given(st.lists(st.tuples(st.sampled_from(["gpu", "tpu"]), st.integers(1, 40)), min_size=1, max_size=6))
def test_devices_charged_are_the_sum_of_exact_counts_per_class(requests: list[tuple[str, int]]) -> None:
    charged = usage(claim(*[{"exactly": exactly(n, klass)} for klass, n in requests]), Cluster())
    for klass in ("gpu", "tpu"):
        total = sum(n for k, n in requests if k == klass)
        assert charged.get(f"{klass}.deviceclass.resource.k8s.io/devices", "0") == str(total)
        assert charged.get(f"requests.deviceclass.resource.kubernetes.io/{klass}", "0") == str(total)
    assert charged.get(EXPLICIT, "0") == str(sum(n for k, n in requests if k == "gpu"))


_CLASS_NAMES = st.from_regex(
    r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?){0,3}", fullmatch=True
)


@given(_CLASS_NAMES, st.integers(0, 1000), st.integers(1, 999))
def test_quota_specs_take_the_claim_keys_as_the_apiserver_does(klass: str, whole: int, milli: int) -> None:
    keys = (
        "count/resourceclaims.resource.k8s.io",
        f"{klass}.deviceclass.resource.k8s.io/devices",
        f"requests.deviceclass.resource.kubernetes.io/{klass}",
    )
    spec = {"spec": {"hard": {key: str(whole) for key in keys}}}
    assert resource_quota_causes(spec) == []
    fractions = resource_quota_causes({"spec": {"hard": {key: f"{milli}m" for key in keys}}})
    # Counts of objects and of devices are whole; a `requests.` name is not itself one, as upstream.
    assert sorted(c["field"] for c in fractions) == [f"spec.hard[{key}]" for key in sorted(keys[:2])]
    assert all(c["message"].endswith("must be an integer") for c in fractions)
