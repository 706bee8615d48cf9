"""A claim's status is checked when written through `/status`: consumers, allocation, device status."""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.dra.validation import dra_status_causes
from support.dra_manifests import EXAMPLE_CLAIM, fresh

POD = {"resource": "pods", "name": "pod0", "uid": "5f0a2c3e-1d2b-4c5d-8e9f-0a1b2c3d4e5f"}
RESULT = {"request": "gpu", "driver": "gpu.example.com", "pool": "kind-worker", "device": "gpu-0"}
ALLOCATION = {
    "devices": {"results": [RESULT]},
    "nodeSelector": {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["kind-worker"]}]}
        ]
    },
}


def claim(**status: Any) -> dict[str, Any]:
    obj = fresh(EXAMPLE_CLAIM)
    if status:
        obj["status"] = status
    return obj


def status_causes(new: dict[str, Any], old: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    return [(c["field"], c["message"]) for c in dra_status_causes("ResourceClaim", new, old or claim())]


def test_an_allocation_reserved_for_a_pod_is_accepted() -> None:
    assert status_causes(claim(allocation=ALLOCATION, reservedFor=[POD])) == []


def test_a_claim_is_reserved_only_once_allocated() -> None:
    assert status_causes(claim(reservedFor=[POD])) == [
        ("status.reservedFor", "Forbidden: may not be specified when `allocated` is not set")
    ]


def test_consumers_are_complete_unique_and_at_most_256() -> None:
    assert status_causes(claim(allocation=ALLOCATION, reservedFor=[POD, POD, {"resource": "pods"}])) == [
        ("status.reservedFor[2].name", "Required value"),
        ("status.reservedFor[2].uid", "Required value"),
        ("status.reservedFor[1]", f'Duplicate value: "{POD["uid"]}"'),
    ]
    many = [{**POD, "uid": f"uid-{i}"} for i in range(257)]
    assert status_causes(claim(allocation=ALLOCATION, reservedFor=many)) == [
        ("status.reservedFor", "Too many: 257: must have at most 256 items")
    ]


def test_results_name_the_claims_requests_and_well_formed_devices() -> None:
    bad = {"devices": {"results": [{**RESULT, "request": "tpu", "device": "GPU 0", "pool": ""}]}}
    fields = [f for f, _ in status_causes(claim(allocation=bad))]
    assert fields == [
        "status.allocation.devices.results[0].request",
        "status.allocation.devices.results[0].pool",
        "status.allocation.devices.results[0].device",
    ]


def test_an_allocation_is_set_once() -> None:
    stored = claim(allocation=ALLOCATION)
    assert status_causes(claim(allocation=ALLOCATION, reservedFor=[POD]), stored) == []
    other = {"devices": {"results": [{**RESULT, "device": "gpu-1"}]}}
    found = status_causes(claim(allocation=other), stored)
    assert [f for f, _ in found] == ["status.allocation"]
    assert found[0][1].endswith("field is immutable")
    assert status_causes(claim(), stored) == [], "deallocation removes the allocation"


def test_device_status_is_about_an_allocated_device() -> None:
    device = {"driver": "gpu.example.com", "pool": "kind-worker", "device": "gpu-7"}
    assert status_causes(claim(allocation=ALLOCATION, devices=[device])) == [
        (
            "status.devices[0]",
            "Invalid value: gpu.example.com/kind-worker/gpu-7: must be an allocated device in the claim",
        )
    ]


def test_no_new_consumer_while_the_claim_is_being_deleted() -> None:
    stored = claim(allocation=ALLOCATION, reservedFor=[POD])
    deleting = claim(allocation=ALLOCATION, reservedFor=[POD, {**POD, "uid": "other"}])
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert [f for f, _ in status_causes(deleting, stored)] == ["status.reservedFor"]
