"""GetPreferredAllocation packs NUMA nodes; Allocate hands out the env, device files and mounts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi_mock.deviceplugin.allocation import (
    SHARE_CONTAINER_PATH,
    VISIBLE_DEVICES_ENV,
    container_grant,
    preferred_devices,
)

NUMA = {"lpu0": 0, "lpu1": 0, "lpu2": 1, "lpu3": 1}


def test_request_that_fits_one_node_takes_the_tightest_node() -> None:
    # lpu0 is taken: node 0 has one left, node 1 two; a pair goes to node 1, not lpu1+lpu2.
    assert preferred_devices(["lpu1", "lpu2", "lpu3"], [], 2, NUMA) == ["lpu2", "lpu3"]
    # A single device goes to the node with one left, keeping node 1's pair whole.
    assert preferred_devices(["lpu1", "lpu2", "lpu3"], [], 1, NUMA) == ["lpu1"]


def test_must_include_pulls_the_rest_onto_its_node() -> None:
    assert preferred_devices(list(NUMA), ["lpu3"], 2, NUMA) == ["lpu3", "lpu2"]


def test_request_larger_than_any_node_drains_fullest_nodes_first() -> None:
    numa = {"a0": 0, "b0": 1, "b1": 1, "b2": 1, "c0": 2, "c1": 2}
    assert preferred_devices(sorted(numa), [], 4, numa) == ["b0", "b1", "b2", "c0"]


def test_devices_are_ordered_naturally() -> None:
    numa = {f"lpu{i}": 0 for i in range(12)}
    assert preferred_devices([f"lpu{i}" for i in (11, 10, 9, 2)], [], 2, numa) == ["lpu2", "lpu9"]


@st.composite
def requests(draw: st.DrawFn) -> tuple[list[str], list[str], int, dict[str, int]]:
    count = draw(st.integers(1, 16))
    ids = [f"lpu{i}" for i in range(count)]
    without_topology = set(draw(st.lists(st.sampled_from(ids), unique=True)))
    numa = {d: draw(st.integers(0, 3)) for d in ids if d not in without_topology}
    available = draw(st.lists(st.sampled_from(ids), min_size=1, unique=True))
    must = draw(st.lists(st.sampled_from(available), unique=True, max_size=len(available)))
    size = draw(st.integers(len(must), len(available)))
    return available, must, size, numa


@given(requests())
def test_preference_is_a_valid_answer(case: tuple[list[str], list[str], int, dict[str, int]]) -> None:
    available, must, size, numa = case
    chosen = preferred_devices(available, must, size, numa)
    assert len(chosen) == size
    assert len(set(chosen)) == size
    assert set(chosen) <= set(available)
    assert set(must) <= set(chosen)
    # The kubelet's order of the offered devices does not change the answer.
    assert chosen == preferred_devices(list(reversed(available)), must, size, numa)


@given(requests())
def test_preference_spans_as_few_numa_nodes_as_possible(
    case: tuple[list[str], list[str], int, dict[str, int]],
) -> None:
    available, _, size, numa = case
    chosen = preferred_devices(available, [], size, numa)
    groups: dict[object, int] = {}
    for device in available:
        key = numa.get(device, "none")
        groups[key] = groups.get(key, 0) + 1
    # The fewest groups that can hold `size` devices: take the largest first.
    fewest, held = 0, 0
    for group_size in sorted(groups.values(), reverse=True):
        if held >= size:
            break
        fewest, held = fewest + 1, held + group_size
    spanned = {numa.get(device, "none") for device in chosen}
    assert len(spanned) == fewest


def test_grant_names_devices_in_env_annotation_device_files_and_mount() -> None:
    paths = {"lpu0": "/dev/lpu0", "lpu2": "/dev/lpu2"}
    grant = container_grant(
        ["lpu0", "lpu2"], paths, include_device_file={"lpu0": True, "lpu2": True}, host_share="/srv/lpu"
    )
    assert grant.envs == {VISIBLE_DEVICES_ENV: "lpu0,lpu2"}
    assert [(f.host_path, f.container_path, f.permissions) for f in grant.device_files] == [
        ("/dev/lpu0", "/dev/lpu0", "rw"),
        ("/dev/lpu2", "/dev/lpu2", "rw"),
    ]
    assert [(m.host_path, m.container_path, m.read_only) for m in grant.mounts] == [
        ("/srv/lpu", SHARE_CONTAINER_PATH, True)
    ]


def test_grant_leaves_out_device_files_that_must_not_be_named() -> None:
    grant = container_grant(["lpu1"], {"lpu1": "/dev/lpu1"}, include_device_file={"lpu1": False})
    assert grant.device_files == () and grant.mounts == ()
    assert grant.envs[VISIBLE_DEVICES_ENV] == "lpu1"
