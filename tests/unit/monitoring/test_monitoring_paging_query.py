"""The paging query and its continue token: defaults, the token format, and refusals naming the field."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nufi.errors import ValidationFailed
from nufi.monitoring.snapshots.paging import (
    MAX_PAGE_NODES,
    ORDERS,
    SORT_KEYS,
    ContinueToken,
    PageQuery,
    decode_continue,
    encode_continue,
    page_snapshot,
    parse_page_query,
    query_fingerprint,
)

from .paging_helpers import T, cluster

FIELDS = {"node", "limit", "continue", "sort", "order"}


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
    assert "start again without 'continue'" in refused.value.detail


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
    assert "malformed" in refused.value.detail and "start again without 'continue'" in refused.value.detail


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
