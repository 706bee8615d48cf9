"""Mock device ids and NUMA placement, shared by the device plugin and the exporter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_mock.inventory import device_index, mock_devices, numa_node_of


def test_four_devices_on_two_numa_nodes_fill_blocks() -> None:
    devices = mock_devices(4, 2)
    assert [d.device_id for d in devices] == ["lpu0", "lpu1", "lpu2", "lpu3"]
    assert [d.numa_node for d in devices] == [0, 0, 1, 1]
    assert devices[3].device_path == "/dev/lpu3"


@given(count=st.integers(1, 64), numa=st.integers(1, 8))
def test_numa_nodes_are_contiguous_balanced_blocks(count: int, numa: int) -> None:
    nodes = [numa_node_of(i, count, numa) for i in range(count)]
    assert nodes == sorted(nodes)
    assert set(nodes) == set(range(min(count, numa)))
    sizes = [nodes.count(n) for n in set(nodes)]
    assert max(sizes) - min(sizes) <= 1


@given(st.integers(0, 10_000))
def test_device_index_round_trips(index: int) -> None:
    assert device_index(f"lpu{index}") == index


@pytest.mark.parametrize("text", ["lpu", "lpu01", "gpu0", "lpu-1", "LPU0", "lpu0 ", ""])
def test_device_index_rejects_other_names(text: str) -> None:
    assert device_index(text) is None


def test_a_node_needs_devices() -> None:
    with pytest.raises(ValueError, match="at least 1 device"):
        mock_devices(0)
