"""The wizard's few samples of an expression come from every node in turn, in their sorted order."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from nufi.devices.sample_spread import across_nodes


@dataclass(frozen=True)
class Point:
    node: str | None
    device: str


def test_two_nodes_of_four_devices_show_two_of_each() -> None:
    points = [Point(f"lpu-node-{n}", f"lpu{d}") for n in (1, 2) for d in range(4)]
    assert across_nodes(points, 4) == [
        Point("lpu-node-1", "lpu0"),
        Point("lpu-node-1", "lpu1"),
        Point("lpu-node-2", "lpu0"),
        Point("lpu-node-2", "lpu1"),
    ]


@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "c", None]), st.integers(0, 9)), unique=True),
    st.integers(0, 6),
)
def test_every_node_is_shown_before_any_shows_a_second_device(
    keys: list[tuple[str | None, int]], size: int
) -> None:
    points = [Point(node, str(device)) for node, device in sorted(keys, key=lambda k: (k[0] or "", k[1]))]
    chosen = across_nodes(points, size)
    assert len(chosen) == min(size, len(points))
    assert chosen == [point for point in points if point in chosen]  # in the order given
    nodes = {point.node for point in points}
    assert len({point.node for point in chosen}) == min(len(nodes), len(chosen))
    # A node shows two fewer samples than another only when it has no more to show.
    count = {node: sum(1 for point in chosen if point.node == node) for node in nodes}
    most = max(count.values(), default=0)
    for node in nodes:
        if count[node] + 1 < most:
            assert count[node] == sum(1 for point in points if point.node == node)
