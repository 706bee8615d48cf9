"""Rendered snapshot pages: the same bytes and ETag as the view serialised afresh, at any age; kept per
key and version, within a count and a byte budget."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from nufi.api.conditional import entity_tag
from nufi.api.schemas.monitoring import SnapshotPageView
from nufi.api.snapshot_pages import PageKey, RenderedPages, render
from nufi.monitoring.contracts import PageRead
from nufi.monitoring.snapshots.audience import SEES_ALL
from nufi.monitoring.snapshots.paging import PageQuery, page_snapshot
from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot, Summary

NOW = 1_700_000_000.0


def page_key(type_id: str, query: bytes = b"") -> PageKey:
    return (type_id, query, SEES_ALL)


def read(utilization: float, *, version: object = 1, nodes: int = 1, age: float = 0.0) -> PageRead:
    entries = tuple(
        NodeEntry(f"n-{i}", 1, 1, 0, (), None, (DeviceEntry("0", utilization),)) for i in range(nodes)
    )
    snapshot = Snapshot("lpu", NOW, Summary.of(entries), entries, (), (), age_seconds=age)
    return PageRead(page_snapshot(snapshot, PageQuery()), version, "all")


@given(
    utilization=st.floats(min_value=0, max_value=100, allow_nan=False),
    age=st.floats(min_value=0, max_value=10 * 86400, allow_nan=False),
)
def test_a_rendered_page_at_an_age_is_the_view_serialised_at_that_age(utilization: float, age: float) -> None:
    rendered = render(read(utilization))
    fresh = SnapshotPageView.of_page(read(utilization, age=age).page).model_dump_json().encode()
    assert rendered.body(age) == fresh
    # The tag `conditional` gives a view: its JSON without the age.
    unaged = SnapshotPageView.of_page(read(utilization).page).model_dump_json(exclude={"age_seconds"})
    assert rendered.etag == "W/" + entity_tag(unaged.encode())


def test_the_etag_ignores_the_age_and_follows_the_data() -> None:
    assert render(read(40.0)).etag == render(read(40.0, age=12.5)).etag
    assert render(read(40.0)).etag != render(read(41.0)).etag
    assert json.loads(render(read(40.0)).body(3.25))["age_seconds"] == 3.25


def test_a_page_is_rendered_once_per_key_and_version() -> None:
    pages = RenderedPages()
    key = page_key("lpu", b"limit=1")
    first = pages.of(key, read(40.0))
    assert pages.of(key, read(40.0)) is first
    assert pages.get(key, 1) is first
    assert pages.get(key, 2) is None
    assert pages.get(page_key("lpu", b"limit=2"), 1) is None
    assert pages.get(("lpu", b"limit=1", frozenset({"team-b"})), 1) is None
    newer = pages.of(key, read(50.0, version=2))
    assert newer is not first and pages.get(key, 2) is newer and len(pages) == 1
    assert (pages.rendered, pages.reused) == (2, 3)


def test_kept_pages_stay_within_their_count_and_bytes_least_recently_used_first_out() -> None:
    size = render(read(40.0, nodes=5)).size
    pages = RenderedPages(max_pages=3, max_bytes=size * 2 + size // 2)
    for name in ("a", "b", "c"):
        pages.of(page_key(name), read(40.0, nodes=5))
    assert len(pages) == 2 and pages.bytes <= size * 2 + size // 2
    assert pages.get(page_key("a"), 1) is None  # the oldest went first
    pages.get(page_key("b"), 1)  # b is used again: c goes next
    pages.of(page_key("d"), read(40.0, nodes=5))
    assert pages.get(page_key("b"), 1) is not None and pages.get(page_key("c"), 1) is None
    # A page larger than the whole budget is answered but not kept.
    tiny = RenderedPages(max_bytes=10)
    assert tiny.of(page_key("x"), read(40.0)).size > 10 and len(tiny) == 0 and tiny.bytes == 0
