"""Paging a snapshot's nodes: every node exactly once in a total order, and refusals naming the field."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nufi.errors import ValidationFailed
from nufi.monitoring.paging import (
    MAX_PAGE_NODES,
    ORDERS,
    SORT_KEYS,
    ContinueToken,
    PageQuery,
    SnapshotPage,
    decode_continue,
    encode_continue,
    page_snapshot,
    parse_page_query,
    query_fingerprint,
)
from nufi.monitoring.snapshot import (
    DeviceEntry,
    MonitoringError,
    NodeEntry,
    NotReporting,
    Snapshot,
    StaleMetric,
    Summary,
)

T = 1_700_000_000.25
FIELDS = {"node", "limit", "continue", "sort", "order"}


def device(
    name: str,
    *,
    temperature: float | None = None,
    utilization: float | None = None,
    used: float | None = None,
    total: float | None = None,
) -> DeviceEntry:
    return DeviceEntry(
        device=name,
        utilization_percent=utilization,
        memory_used_bytes=used,
        memory_total_bytes=total,
        temperature_celsius=temperature,
    )


def node(name: str, *devices: DeviceEntry) -> NodeEntry:
    return NodeEntry(
        node=name,
        capacity=len(devices),
        allocatable=len(devices),
        allocated=0,
        pods=(),
        workload=None,
        devices=devices,
    )


def snapshot_of(nodes: list[NodeEntry], *, time: float = T) -> Snapshot:
    stale = tuple(
        StaleMetric("temperature", entry.node, d.device, time - 400, 400, 300)
        for entry in nodes
        for d in entry.devices[:1]
    )
    errors = (MonitoringError("prometheus", "query failed", metric="power"),)
    silent = tuple(NotReporting(entry.node, entry.capacity or 1) for entry in nodes if not entry.devices)
    return Snapshot("gpu", time, Summary.of(nodes), tuple(nodes), stale, errors, silent)


def cluster(nodes: int = 1000, devices: int = 8) -> Snapshot:
    return snapshot_of(
        [
            node(
                f"node-{n:04d}",
                *(
                    device(
                        f"gpu-{d}",
                        temperature=None if n % 7 == 0 else float((n * 31 + d) % 90),
                        utilization=float((n * 13 + d * 5) % 101),
                        used=float(n % 10) * 2**30,
                        total=80 * 2**30,
                    )
                    for d in range(devices)
                ),
            )
            for n in range(nodes)
        ]
    )


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


def test_defaults_and_the_token_format() -> None:
    assert parse_page_query(node="", limit=None, continue_token="", sort=None, order=None) == PageQuery()
    assert (
        parse_page_query(node=None, limit=None, continue_token=None, sort="memory", order=None).order
        == "desc"
    )
    assert (
        parse_page_query(node=None, limit=None, continue_token=None, sort="node", order=None).order == "asc"
    )
    query = PageQuery(limit=2, sort="temperature", order="desc")
    page = page_snapshot(cluster(nodes=5, devices=1), query)
    token = page.continue_token
    assert token is not None and "=" not in token
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert body == {"t": T, "o": 2, "f": query_fingerprint(query)}
    assert " " not in base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    assert decode_continue(PageQuery(limit=2, sort="temperature", continue_token=token, order="desc")) == (
        ContinueToken(snapshot_time=T, offset=2, fingerprint=query_fingerprint(query))
    )
    assert decode_continue(query) is None
    # Past the end (a token of a snapshot that has since shrunk): an empty last page.
    past = page_snapshot(cluster(nodes=5, devices=1), query, offset=9)
    assert past.snapshot.nodes == () and past.continue_token is None and past.matched_nodes == 5


@pytest.mark.parametrize(
    "changed",
    [
        {"sort": "utilization"},
        {"order": "asc"},
        {"limit": "3"},
        {"limit": None},
        {"node": "node-1"},
        {"node": None},
    ],
)
def test_a_token_is_refused_with_other_values(changed: dict[str, str | None]) -> None:
    first: dict[str, str | None] = {"node": "Node", "limit": "2", "sort": "temperature", "order": None}
    query = parse_page_query(continue_token=None, **first)
    token = page_snapshot(cluster(nodes=10, devices=2), query).continue_token
    assert token is not None
    # With the very same values (the node filter in another case matches the same nodes) it is taken.
    assert parse_page_query(continue_token=token, **{**first, "node": " NODE", "order": "desc"}).limit == 2
    with pytest.raises(ValidationFailed) as refused:
        parse_page_query(continue_token=token, **{**first, **changed})
    assert refused.value.field == "continue"
    assert "different node, sort, order or limit" in refused.value.detail
    assert "start again without `continue`" in refused.value.detail


def raw_token(body: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


FP = query_fingerprint(PageQuery())


@pytest.mark.parametrize(
    "token",
    [
        "not a token",
        "=",
        "a",
        "AAAA",
        raw_token([1, 2, 3]),
        raw_token({"t": T, "o": 1}),
        raw_token({"t": T, "o": 1, "f": FP, "x": 0}),
        raw_token({"t": "1", "o": 1, "f": FP}),
        raw_token({"t": True, "o": 1, "f": FP}),
        raw_token({"t": T, "o": True, "f": FP}),
        raw_token({"t": T, "o": 1.5, "f": FP}),
        raw_token({"t": T, "o": 0, "f": FP}),
        raw_token({"t": T, "o": -3, "f": FP}),
        raw_token({"t": T, "o": 1, "f": 7}),
        base64.urlsafe_b64encode(b'{"t":NaN,"o":1,"f":"' + FP.encode() + b'"}').decode().rstrip("="),
        base64.urlsafe_b64encode(b"\xff\xfe{}").decode().rstrip("="),
        raw_token({"t": T, "o": 1, "f": FP}) + "=",
        "A" * 300,
    ],
)
def test_a_malformed_token_is_refused_naming_continue(token: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_page_query(node=None, limit=None, continue_token=token, sort=None, order=None)
    assert refused.value.field == "continue"
    assert "malformed" in refused.value.detail and "start again without `continue`" in refused.value.detail


def test_a_well_formed_token_is_taken() -> None:
    # The malformed cases above differ from this one in one respect each.
    token = raw_token({"t": T, "o": 1, "f": FP})
    decoded = decode_continue(
        parse_page_query(node=None, limit=None, continue_token=token, sort=None, order=None)
    )
    assert decoded == ContinueToken(T, 1, FP)


@pytest.mark.parametrize(
    ("field", "raw", "said"),
    [
        ("limit", "0", "1 to 5000"),
        ("limit", "5001", "1 to 5000"),
        ("limit", "9" * 5000, "1 to 5000"),
        ("limit", "-1", "1 to 5000"),
        ("limit", "ten", "1 to 5000"),
        ("limit", "1.5", "1 to 5000"),
        ("limit", " 5", "1 to 5000"),
        ("limit", "٣", "1 to 5000"),
        ("limit", "", "1 to 5000"),
        ("sort", "hottest", "node, temperature, utilization, memory"),
        ("sort", "", "node, temperature, utilization, memory"),
        ("sort", "Node", "node, temperature, utilization, memory"),
        ("order", "up", "asc, desc"),
        ("order", "DESC", "asc, desc"),
        ("node", "n" * 254, "at most 253"),
    ],
)
def test_a_bad_value_is_refused_naming_its_field_and_what_is_allowed(field: str, raw: str, said: str) -> None:
    values: dict[str, str | None] = {
        "node": None,
        "limit": None,
        "sort": None,
        "order": None,
        "continue_token": None,
    }
    values[field] = raw
    with pytest.raises(ValidationFailed) as refused:
        parse_page_query(**values)
    assert refused.value.field == field
    assert said in refused.value.detail
    assert len(refused.value.detail) < 400


def test_the_bounds_themselves_are_accepted() -> None:
    def parsed(**raw: str) -> PageQuery:
        values: dict[str, str | None] = {"node": None, "limit": None, "sort": None, "order": None}
        return parse_page_query(continue_token=None, **{**values, **raw})

    assert parsed(limit="1").limit == 1
    assert parsed(limit=str(MAX_PAGE_NODES)).limit == MAX_PAGE_NODES
    assert parsed(limit="007").limit == 7
    assert parsed(node=" " + "n" * 253 + " ").node == "n" * 253
    assert parsed(sort="utilization", order="asc") == PageQuery(sort="utilization", order="asc")


junk = st.none() | st.text(max_size=40) | st.sampled_from(["1", "5000", "node", "memory", "asc", "desc"])


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(st.sampled_from(["t", "o", "f", "x"]), inner, min_size=1),
    )


json_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    _nested,
    max_leaves=8,
)


@settings(max_examples=500)
@given(
    node=junk,
    limit=junk,
    sort=junk,
    order=junk,
    token=junk
    | json_junk.map(raw_token)
    | st.binary(max_size=60).map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")),
)
def test_junk_gives_a_query_or_a_refusal_naming_a_field(
    node: str | None, limit: str | None, sort: str | None, order: str | None, token: str | None
) -> None:
    try:
        query = parse_page_query(node=node, limit=limit, continue_token=token, sort=sort, order=order)
    except ValidationFailed as refused:
        assert refused.field in FIELDS
        assert refused.detail
        return
    assert query.sort in SORT_KEYS and query.order in ORDERS
    assert query.limit is None or 1 <= query.limit <= MAX_PAGE_NODES
    assert query.node is None or (query.node == query.node.strip() and 0 < len(query.node) <= 253)
    page_snapshot(cluster(nodes=3, devices=1), query)


@given(offset=st.integers(1, 10**30), time=st.floats(allow_nan=False, allow_infinity=False))
def test_tokens_decode_to_what_was_encoded(offset: int, time: float) -> None:
    query = PageQuery(node="a", limit=10, sort="memory", order="asc")
    token = ContinueToken(snapshot_time=time, offset=offset, fingerprint=query_fingerprint(query))
    assert decode_continue(dataclasses.replace(query, continue_token=encode_continue(token))) == token
