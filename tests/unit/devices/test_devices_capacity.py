"""Inventory arithmetic: quantities, what a pod holds, and the per-node join."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from nufi.cluster.inventory import BoundPod, NodeResources
from nufi.cluster.resources import effective_requests, parse_quantity, quantity_to_int
from nufi.devices.capacity import build_inventory

LPU = "hyperaccel.ai/lpu"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("8", 8),
        ("3000m", 3),
        ("1Ki", 1024),
        ("2k", 2000),
        ("1e3", 1000),
        ("0.5", Decimal("0.5")),
        ("64Gi", 64 * 2**30),
    ],
)
def test_quantities(text: str, value: int | Decimal) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", ["", "eight", "1.2.3", "5 Gi", "1Kb"])
def test_bad_quantities_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a Kubernetes quantity"):
        parse_quantity(text)


def test_fractions_round_up_to_whole_devices() -> None:
    assert quantity_to_int("1500m") == 2


def container(**resources: dict[str, str]) -> dict[str, Any]:
    return {"name": "c", "image": "x", "resources": resources}


def test_a_limit_alone_is_the_request_of_an_extended_resource() -> None:
    spec = {
        "containers": [
            container(limits={LPU: "2", "cpu": "1"}),
            container(requests={LPU: "1"}, limits={LPU: "1"}),
        ]
    }
    assert effective_requests(spec) == {LPU: 3}


def test_init_containers_count_as_their_peak_and_sidecars_add_up() -> None:
    spec = {
        "initContainers": [
            container(limits={LPU: "4"}),
            {**container(limits={LPU: "1"}), "restartPolicy": "Always"},
            container(limits={LPU: "4"}),
        ],
        "containers": [container(limits={LPU: "2"})],
    }
    # Peak: the second plain init container runs beside the sidecar (4 + 1); afterwards 2 + 1.
    assert effective_requests(spec) == {LPU: 5}
    assert effective_requests({"containers": [container(limits={"cpu": "2", "nvidia.com/gpu": "1"})]}) == {
        "nvidia.com/gpu": 1
    }


def node(name: str, capacity: str | None, allocatable: str | None = None) -> NodeResources:
    caps = {"cpu": "16"} | ({LPU: capacity} if capacity is not None else {})
    allocs = {"cpu": "16"} | ({LPU: allocatable or capacity} if capacity is not None else {})
    return NodeResources(name, caps, allocs)


def pod(node_name: str, amount: int, name: str = "p") -> BoundPod:
    return BoundPod("default", name, node_name, "Running", {LPU: amount} if amount else {})


def test_inventory_joins_nodes_and_pods() -> None:
    inventory = build_inventory(
        LPU,
        [node("b", "4", "3"), node("a", "8"), node("cpu", None)],
        [pod("a", 2, "p1"), pod("a", 1, "p2"), pod("b", 0), pod("cpu", 0)],
    )
    assert [(n.node, n.capacity, n.allocatable, n.allocated) for n in inventory.nodes] == [
        ("a", 8, 8, 3),
        ("b", 4, 3, 0),
    ]
    assert (inventory.capacity, inventory.allocatable, inventory.allocated) == (12, 11, 3)
    assert inventory.nodes_with_devices == 2


def test_pods_holding_devices_on_a_node_without_them_still_show() -> None:
    inventory = build_inventory(LPU, [node("cpu", None)], [pod("cpu", 1), pod("gone", 1)])
    assert [(n.node, n.capacity, n.allocated) for n in inventory.nodes] == [("cpu", 0, 1)]
    assert inventory.nodes_with_devices == 0
