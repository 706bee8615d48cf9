"""Paging a snapshot's nodes: every node exactly once in a total order."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nufi.monitoring.snapshots.paging import (
    ORDERS,
    SORT_KEYS,
    PageQuery,
    SnapshotPage,
    decode_continue,
    page_snapshot,
    parse_page_query,
)
from nufi.monitoring.snapshots.snapshot import (
    DeviceEntry,
    NodeEntry,
    Snapshot,
    Summary,
)

from .paging_helpers import cluster, device, node, snapshot_of


def walk(snapshot: Snapshot, **raw: str | None) -> list[SnapshotPage]:
    """Every page, as a client gets them: first without a token, then with each one returned."""
    values: dict[str, str | None] = {"node": None, "limit": None, "sort": None, "order": None, **raw}
    pages: list[SnapshotPage] = []
    token: str | None = None
    while True:
        query = parse_page_query(continue_token=token, **values)
        decoded = decode_continue(query)
        if decoded is not None:
            assert decoded.snapshot_time == snapshot.time
        page = page_snapshot(snapshot, query, offset=0 if decoded is None else decoded.offset)
        pages.append(page)
        assert len(pages) <= len(snapshot.nodes) + 1, "the tokens never end"
        token = page.continue_token
        if token is None:
            return pages


def names(pages: list[SnapshotPage]) -> list[str]:
    return [entry.node for page in pages for entry in page.snapshot.nodes]


# The reference order, built differently from the module's: stable sorts, the last one on the value.
def highest(entry: NodeEntry, value_of: Callable[[DeviceEntry], float | None]) -> float | None:
    values = [v for d in entry.devices if (v := value_of(d)) is not None]
    return max(values) if values else None


def memory_fraction(d: DeviceEntry) -> float | None:
    if d.memory_used_bytes is None or not d.memory_total_bytes:
        return None
    return d.memory_used_bytes / d.memory_total_bytes


VALUES: dict[str, Callable[[DeviceEntry], float | None]] = {
    "temperature": lambda d: d.temperature_celsius,
    "utilization": lambda d: d.utilization_percent,
    "memory": memory_fraction,
}


def expected_order(nodes: list[NodeEntry], sort: str, order: str) -> list[str]:
    if sort == "node":
        return sorted((entry.node for entry in nodes), reverse=order == "desc")
    by_name = sorted(nodes, key=lambda entry: entry.node)
    valued = [entry for entry in by_name if highest(entry, VALUES[sort]) is not None]
    lacking = [entry.node for entry in by_name if highest(entry, VALUES[sort]) is None]
    valued.sort(key=lambda entry: highest(entry, VALUES[sort]) or 0.0, reverse=order == "desc")
    return [entry.node for entry in valued] + lacking


# Few distinct values, so that ties (broken by name) are common; None so that values are missing.
maybe_value = st.none() | st.sampled_from([0.0, 1.0, 1.0, 50.5, 99.0])


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    node_names = draw(
        st.lists(
            st.text(alphabet="abAB-1", min_size=1, max_size=4).map(lambda s: f"n{s}"),
            unique=True,
            max_size=30,
        )
    )
    nodes = []
    for name in node_names:
        count = draw(st.integers(0, 8))
        devices = [
            device(
                f"dev-{d}",
                temperature=draw(maybe_value),
                utilization=draw(maybe_value),
                used=draw(maybe_value),
                total=draw(st.none() | st.sampled_from([0.0, 100.0, 200.0])),
            )
            for d in range(count)
        ]
        nodes.append(node(name, *devices))
    return snapshot_of(nodes, time=draw(st.floats(0, 2e9)))


@settings(max_examples=300)
@given(
    snapshot=snapshots(),
    limit=st.none() | st.integers(1, 12),
    sort=st.none() | st.sampled_from(SORT_KEYS),
    order=st.none() | st.sampled_from(ORDERS),
    text=st.none() | st.text(alphabet="abAB-1 ", max_size=3),
)
def test_following_the_tokens_gives_every_node_once_in_order(
    snapshot: Snapshot, limit: int | None, sort: str | None, order: str | None, text: str | None
) -> None:
    pages = walk(snapshot, node=text, limit=None if limit is None else str(limit), sort=sort, order=order)
    needle = (text or "").strip().casefold()
    matching = [entry for entry in snapshot.nodes if needle in entry.node.casefold()]
    resolved_sort = sort or "node"
    resolved_order = order or ("asc" if resolved_sort == "node" else "desc")
    assert names(pages) == expected_order(matching, resolved_sort, resolved_order)
    # Each node whole: the very entries of the snapshot, so every device exactly once.
    served = [entry for page in pages for entry in page.snapshot.nodes]
    assert sorted(served, key=lambda e: e.node) == sorted(matching, key=lambda e: e.node)
    assert sum(len(e.devices) for e in served) == sum(len(e.devices) for e in matching)
    for number, page in enumerate(pages):
        size = len(page.snapshot.nodes)
        assert page.matched_nodes == len(matching)
        assert size == len(matching) if limit is None else size <= limit
        last = number == len(pages) - 1
        assert (page.continue_token is None) == last
        assert size > 0 or (last and not matching)
        on_page = {e.node for e in page.snapshot.nodes}
        assert page.snapshot.stale == tuple(s for s in snapshot.stale if s.node in on_page)
        assert page.snapshot.not_reporting == tuple(n for n in snapshot.not_reporting if n.node in on_page)
        assert page.snapshot.summary == snapshot.summary
        assert page.snapshot.errors == snapshot.errors
        assert (page.snapshot.device_type, page.snapshot.time) == (snapshot.device_type, snapshot.time)


def test_a_thousand_nodes_of_eight_devices_in_pages_of_a_hundred() -> None:
    snapshot = cluster()
    pages = walk(snapshot, limit="100", sort="temperature")
    assert [len(page.snapshot.nodes) for page in pages] == [100] * 10
    served = names(pages)
    assert len(set(served)) == 1000
    assert sum(len(e.devices) for page in pages for e in page.snapshot.nodes) == 8000
    assert served == expected_order(list(snapshot.nodes), "temperature", "desc")
    # Nodes whose every device lacks a temperature (every 7th) close the last page.
    assert served[-143:] == sorted(f"node-{n:04d}" for n in range(0, 1000, 7))
    assert all(page.snapshot.summary.nodes == 1000 for page in pages)
    everything = page_snapshot(
        snapshot, parse_page_query(node=None, limit=None, continue_token=None, sort=None, order=None)
    )
    assert everything.continue_token is None and len(everything.snapshot.nodes) == 1000


@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("sort", ["temperature", "utilization", "memory"])
def test_nodes_lacking_the_value_come_last_in_either_order(sort: str, order: str) -> None:
    nodes = [
        node("a-empty"),
        node("b-none", device("d0"), device("d1", used=5.0), device("d2", total=0.0, used=1.0)),
        node("c-low", device("d0", temperature=10, utilization=10, used=10, total=100), device("d1")),
        node("d-high", device("d0", temperature=90, utilization=90, used=90, total=100)),
        node("e-mid", device("d0", temperature=50, utilization=50, used=50, total=100)),
        node("f-mid", device("d0", temperature=50, utilization=50, used=50, total=100)),
    ]
    query = parse_page_query(node=None, limit=None, continue_token=None, sort=sort, order=order)
    served = [e.node for e in page_snapshot(snapshot_of(nodes), query).snapshot.nodes]
    valued = (
        ["c-low", "e-mid", "f-mid", "d-high"] if order == "asc" else ["d-high", "e-mid", "f-mid", "c-low"]
    )
    assert served == [*valued, "a-empty", "b-none"]


def test_a_nan_value_counts_as_none_so_the_order_stays_total() -> None:
    nodes = [
        node("a-nan", device("d0", temperature=float("nan"))),
        node("b-hot", device("d0", temperature=80), device("d1", temperature=float("nan"))),
        node("c-cold", device("d0", temperature=20)),
    ]
    for order in ("asc", "desc"):
        page = page_snapshot(snapshot_of(nodes), PageQuery(sort="temperature", order=order))
        served = [e.node for e in page.snapshot.nodes]
        assert served == (["c-cold", "b-hot"] if order == "asc" else ["b-hot", "c-cold"]) + ["a-nan"]


def test_a_node_ranks_by_its_most_extreme_device_and_memory_as_a_fraction() -> None:
    nodes = [
        node("big", device("d0", used=60, total=100), device("d1", used=70, total=1000)),
        node("small", device("d0", used=8, total=10), device("d1", temperature=99)),
    ]
    query = PageQuery(sort="memory", order="desc")
    assert [e.node for e in page_snapshot(snapshot_of(nodes), query).snapshot.nodes] == ["small", "big"]
    query = PageQuery(sort="temperature", order="asc")
    assert [e.node for e in page_snapshot(snapshot_of(nodes), query).snapshot.nodes] == ["small", "big"]


def test_the_filter_is_a_case_insensitive_substring_of_the_name() -> None:
    nodes = [node("GPU-Node-1"), node("gpu-node-2"), node("cpu-1"), node("edge-NODE")]
    snapshot = snapshot_of(nodes)

    def served(text: str) -> list[str]:
        query = parse_page_query(node=text, limit=None, continue_token=None, sort=None, order=None)
        page = page_snapshot(snapshot, query)
        assert page.matched_nodes == len(page.snapshot.nodes)
        return [e.node for e in page.snapshot.nodes]

    assert served("node") == ["GPU-Node-1", "edge-NODE", "gpu-node-2"]
    assert served("  Node-2 ") == ["gpu-node-2"]
    assert served("-1") == ["GPU-Node-1", "cpu-1"]
    assert served("tpu") == []
    assert served("   ") == ["GPU-Node-1", "cpu-1", "edge-NODE", "gpu-node-2"]


def test_the_summary_and_errors_stay_those_of_the_whole_type() -> None:
    snapshot = cluster(nodes=20, devices=2)
    query = parse_page_query(node="node-001", limit="3", continue_token=None, sort="utilization", order=None)
    page = page_snapshot(snapshot, query)
    assert len(page.snapshot.nodes) == 3 and page.matched_nodes == 10
    assert page.snapshot.summary == Summary.of(snapshot.nodes)
    assert page.snapshot.summary != Summary.of(page.snapshot.nodes)
    assert page.snapshot.errors == snapshot.errors
    assert len(page.snapshot.stale) == 3 < len(snapshot.stale)
