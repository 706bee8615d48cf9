"""The allocator picks devices as the scheduler's structured allocator does, rule by rule."""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster.dra.allocator import AllocationError, allocate
from nufi_sandbox.devcluster.dra.pools import DeviceId, allocated_devices

from .dra_objects import (
    CLASS,
    DRIVER,
    claim,
    device_class,
    exactly,
    lpu,
    node,
    resource_slice,
)

Obj = dict[str, Any]
CLASSES = {CLASS: device_class()}
FOUR = resource_slice([lpu(i, numa=i // 2) for i in range(4)])


def picked(allocation: Obj) -> list[str]:
    return [r["device"] for r in allocation["devices"]["results"]]


def run(
    claims: list[Obj],
    slices: list[Obj],
    *,
    classes: dict[str, Obj] = CLASSES,
    taken: set[DeviceId] | None = None,
    on: Obj | None = None,
) -> list[Obj] | None:
    return allocate(claims, classes, slices, taken or set(), on or node())


def test_one_device_by_default_written_as_upstream_writes_the_allocation() -> None:
    result = run([claim(exactly())], [FOUR])
    assert result == [
        {
            "devices": {
                "results": [{"request": "lpu", "driver": DRIVER, "pool": "lpu-node-3", "device": "lpu-0"}]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["lpu-node-3"]}]}
                ]
            },
        }
    ]


def test_exact_count_takes_that_many_and_fails_past_what_is_free() -> None:
    result = run([claim(exactly(count=3))], [FOUR])
    assert result is not None and picked(result[0]) == ["lpu-0", "lpu-1", "lpu-2"]
    assert run([claim(exactly(count=5))], [FOUR]) is None


def test_devices_other_claims_hold_are_not_candidates() -> None:
    held = {DeviceId(DRIVER, "lpu-node-3", "lpu-0"), DeviceId(DRIVER, "lpu-node-3", "lpu-2")}
    result = run([claim(exactly(count=2))], [FOUR], taken=held)
    assert result is not None and picked(result[0]) == ["lpu-1", "lpu-3"]
    assert run([claim(exactly(count=3))], [FOUR], taken=held) is None


def test_claims_allocated_together_never_share_a_device() -> None:
    result = run([claim(exactly(count=2), name="a"), claim(exactly(count=2), name="b")], [FOUR])
    assert result is not None and [picked(r) for r in result] == [["lpu-0", "lpu-1"], ["lpu-2", "lpu-3"]]


def test_allocated_devices_are_read_from_claim_status() -> None:
    result = run([claim(exactly(count=2))], [FOUR])
    assert result is not None
    held = allocated_devices([{"status": {"allocation": result[0]}}, {"status": {}}])
    assert held == {DeviceId(DRIVER, "lpu-node-3", "lpu-0"), DeviceId(DRIVER, "lpu-node-3", "lpu-1")}


def test_a_pool_is_used_only_once_all_its_slices_are_seen() -> None:
    first_half = resource_slice([lpu(0), lpu(1)], name="s-1", count=2)
    assert run([claim(exactly())], [first_half]) is None
    second_half = resource_slice([lpu(2), lpu(3)], name="s-2", count=2)
    result = run([claim(exactly(count=4))], [second_half, first_half])
    assert result is not None and picked(result[0]) == ["lpu-0", "lpu-1", "lpu-2", "lpu-3"]


def test_only_the_newest_generation_of_a_pool_counts() -> None:
    old = resource_slice([lpu(0), lpu(1)], name="old", generation=1)
    new = resource_slice([lpu(5)], name="new", generation=2)
    result = run([claim(exactly())], [old, new])
    assert result is not None and picked(result[0]) == ["lpu-5"]
    assert run([claim(exactly(count=2))], [old, new]) is None


def test_only_devices_usable_on_the_node_are_candidates() -> None:
    elsewhere = resource_slice([lpu(0)], name="other", pool="lpu-node-1", nodeName="lpu-node-1")
    assert run([claim(exactly())], [elsewhere]) is None
    by_label = resource_slice(
        [lpu(1)],
        name="rack",
        pool="rack-a",
        nodeSelector={
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["a"]}]}]
        },
    )
    assert run([claim(exactly())], [by_label], on=node(rack="b")) is None
    on_rack = run([claim(exactly())], [by_label], on=node(rack="a"))
    assert on_rack is not None and on_rack[0]["nodeSelector"] == by_label["spec"]["nodeSelector"]
    everywhere = run([claim(exactly())], [resource_slice([lpu(2)], name="net", pool="net", allNodes=True)])
    assert (
        everywhere is not None and picked(everywhere[0]) == ["lpu-2"] and "nodeSelector" not in everywhere[0]
    )


def test_class_selectors_and_request_selectors_must_both_hold() -> None:
    mixed = resource_slice([lpu(0, model="HA-16"), lpu(1, model="HA-32"), lpu(2, model="HA-32")])
    classes = {
        CLASS: device_class(
            CLASS, f"device.driver == '{DRIVER}'", f"device.attributes['{DRIVER}'].model != 'HA-16'"
        )
    }
    not_uuid_1 = f"device.attributes['{DRIVER}'].uuid != 'LPU-0001'"
    result = run([claim(exactly("lpu", not_uuid_1))], [mixed], classes=classes)
    assert result is not None and picked(result[0]) == ["lpu-2"]
    other_driver = {CLASS: device_class(CLASS, "device.driver == 'gpu.nvidia.com'")}
    assert run([claim(exactly())], [mixed], classes=other_driver) is None


def test_a_selector_on_capacity_memory_compares_quantities() -> None:
    sizes = resource_slice([lpu(0, memory="16Gi"), lpu(1, memory="32Gi"), lpu(2, memory="64Gi")])
    at_least = f"device.capacity['{DRIVER}'].memory.compareTo(quantity('24Gi')) >= 0"
    result = run([claim(exactly("lpu", at_least, count=2))], [sizes])
    assert result is not None and picked(result[0]) == ["lpu-1", "lpu-2"]


def test_a_selector_on_a_version_attribute_compares_semver() -> None:
    firmware = resource_slice(
        [lpu(0, firmware="1.9.0"), lpu(1, firmware="10.0.0"), lpu(2, firmware="2.0.0-rc.1")]
    )
    newer = f"device.attributes['{DRIVER}'].firmwareVersion.compareTo(semver('2.0.0')) >= 0"
    result = run([claim(exactly("lpu", newer))], [firmware])
    assert result is not None and picked(result[0]) == ["lpu-1"]


def test_all_takes_every_matching_device_and_only_when_none_is_held() -> None:
    result = run([claim(exactly(mode="All"))], [FOUR])
    assert result is not None and picked(result[0]) == ["lpu-0", "lpu-1", "lpu-2", "lpu-3"]
    assert run([claim(exactly(mode="All"))], [FOUR], taken={DeviceId(DRIVER, "lpu-node-3", "lpu-3")}) is None
    assert run([claim(exactly(mode="All"))], []) is None


def test_all_on_a_pool_being_rewritten_is_an_error() -> None:
    with pytest.raises(
        AllocationError, match=r"asks for all devices, but resource pool .* is currently being updated"
    ):
        run([claim(exactly(mode="All"))], [resource_slice([lpu(0)], count=2)])


def test_match_attribute_goes_back_over_a_first_choice_that_cannot_be_completed() -> None:
    # lpu-0 alone on NUMA node 0: first fit takes it, finds no partner, and starts again from lpu-1.
    devices = resource_slice([lpu(0, numa=0), lpu(1, numa=1), lpu(2, numa=1)])
    same_numa = [{"matchAttribute": f"{DRIVER}/numaNode"}]
    result = run([claim(exactly(count=2), constraints=same_numa)], [devices])
    assert result is not None and picked(result[0]) == ["lpu-1", "lpu-2"]
    assert run([claim(exactly(count=3), constraints=same_numa)], [devices]) is None


def test_match_attribute_spans_the_requests_it_names() -> None:
    devices = resource_slice([lpu(0, numa=0), lpu(1, numa=1), lpu(2, numa=1)])
    constraint = [{"requests": ["a", "b"], "matchAttribute": f"{DRIVER}/numaNode"}]
    result = run([claim(exactly("a"), exactly("b"), constraints=constraint)], [devices])
    assert result is not None and picked(result[0]) == ["lpu-1", "lpu-2"]


def test_a_constraint_on_an_attribute_a_device_lacks_excludes_it() -> None:
    constraint = [{"matchAttribute": "example.com/rack"}]
    assert run([claim(exactly(), constraints=constraint)], [FOUR]) is None


def test_distinct_attribute_spreads_over_values() -> None:
    constraint = [{"distinctAttribute": f"{DRIVER}/numaNode"}]
    result = run([claim(exactly(count=2), constraints=constraint)], [FOUR])
    assert result is not None and picked(result[0]) == ["lpu-0", "lpu-2"]
    assert run([claim(exactly(count=3), constraints=constraint)], [FOUR]) is None


def test_a_later_request_can_move_an_earlier_ones_choice() -> None:
    devices = resource_slice([lpu(0, model="HA-64"), lpu(1), lpu(2)])
    big = f"device.attributes['{DRIVER}'].model == 'HA-64'"
    result = run([claim(exactly("any"), exactly("big", big))], [devices])
    assert result is not None
    assert [(r["request"], r["device"]) for r in result[0]["devices"]["results"]] == [
        ("any", "lpu-1"),
        ("big", "lpu-0"),
    ]


def _first_available(*subrequests: Obj) -> Obj:
    return {"name": "lpu", "firstAvailable": [{"name": s["name"], **s["exactly"]} for s in subrequests]}


def test_first_available_tries_subrequests_in_order() -> None:
    big = f"device.attributes['{DRIVER}'].model == 'HA-64'"
    request = _first_available(exactly("big", big, count=2), exactly("small", count=2))
    result = run([claim(request)], [FOUR])
    assert result is not None
    assert [(r["request"], r["device"]) for r in result[0]["devices"]["results"]] == [
        ("lpu/small", "lpu-0"),
        ("lpu/small", "lpu-1"),
    ]
    two_big = resource_slice([lpu(0), lpu(1, model="HA-64"), lpu(2, model="HA-64")])
    result = run([claim(request)], [two_big])
    assert result is not None and [r["request"] for r in result[0]["devices"]["results"]] == [
        "lpu/big",
        "lpu/big",
    ]


def test_first_fit_visits_pools_and_slices_by_name() -> None:
    later = resource_slice([lpu(0)], name="a-slice", pool="pool-b")
    earlier = resource_slice([lpu(7)], name="b-slice", pool="pool-a")
    result = run([claim(exactly())], [later, earlier])
    assert result is not None and result[0]["devices"]["results"][0]["pool"] == "pool-a"
    split = [resource_slice([lpu(9)], name="z", count=2), resource_slice([lpu(8)], name="y", count=2)]
    result = run([claim(exactly())], split)
    assert result is not None and picked(result[0]) == ["lpu-8"]


def test_a_selector_that_fails_aborts_with_upstreams_words() -> None:
    broken = {CLASS: device_class(CLASS, f"device.attributes['{DRIVER}'].vendor == 'x'")}
    with pytest.raises(
        AllocationError, match=rf"^class {CLASS}: selector #0: CEL runtime error: no such key: vendor$"
    ):
        run([claim(exactly())], [FOUR], classes=broken)
    request = exactly("lpu", f"device.driver == '{DRIVER}'", f"device.attributes['{DRIVER}'].vendor == 'x'")
    with pytest.raises(
        AllocationError, match=r"^claim default/claim: selector #1: CEL runtime error: no such key"
    ):
        run([claim(request)], [FOUR])


def test_a_missing_device_class_aborts() -> None:
    with pytest.raises(AllocationError, match=r'deviceclass\.resource\.k8s\.io "nope" not found'):
        run([claim(exactly(device_class="nope"))], [FOUR])


def test_class_and_claim_configuration_travel_with_the_allocation() -> None:
    opaque = {"opaque": {"driver": DRIVER, "parameters": {"mode": "fast"}}}
    classes = {CLASS: device_class(CLASS, config=[opaque])}
    with_config = claim(exactly())
    with_config["spec"]["devices"]["config"] = [{"requests": ["lpu"], **opaque}]
    result = run([with_config], [FOUR], classes=classes)
    assert result is not None
    assert result[0]["devices"]["config"] == [
        {"source": "FromClass", "requests": ["lpu"], **opaque},
        {"source": "FromClaim", "requests": ["lpu"], **opaque},
    ]
