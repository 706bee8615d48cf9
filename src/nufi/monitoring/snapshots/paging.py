"""One page of a snapshot's nodes, filtered and sorted on the server.

A snapshot of a 1,000-node cluster with 8 devices each is megabytes of JSON, while a dashboard shows a
few dozen rows: paging on the server keeps every refresh small, and sorting and filtering there is
what makes a page the right few dozen rows. Pages are cut between nodes, never inside one, so a
node's devices, pods and inventory counts arrive together; the summary and the errors are left whole,
because they describe the device type, not the page open.

Consecutive pages must neither repeat nor skip a node, so the order is total: a node is ranked by its
most extreme device (the hottest, the busiest, the fullest), nodes without that value come last in
either direction (an unknown temperature is neither hot nor cold), and ties go by node name.

The continue token says where the next page starts (an offset) and in which snapshot (its `time`).
An offset only means something in the ordering and the snapshot it came from: the token therefore
carries a fingerprint of the filter, sort, order and limit and is refused with any others, and the
caller compares `snapshot_time` with the snapshot it is about to page. The token is opaque to
clients but not signed: forging one only moves the offset within nodes the caller may read anyway.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from nufi.errors import ValidationFailed
from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot

SortKey = Literal["node", "temperature", "utilization", "memory"]
Order = Literal["asc", "desc"]
SORT_KEYS: tuple[SortKey, ...] = ("node", "temperature", "utilization", "memory")
ORDERS: tuple[Order, ...] = ("asc", "desc")
_Word = TypeVar("_Word", bound=str)

MAX_PAGE_NODES = 5000
# Kubernetes node names are DNS subdomains: no name is longer, so no longer filter can match.
MAX_NODE_FILTER_CHARS = 253
# A token NuFi issues is under 100 characters; anything much longer is not one of them.
MAX_CONTINUE_CHARS = 256
_SHOWN_CHARS = 64
_TOKEN_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_TOKEN_KEYS = frozenset({"t", "o", "f"})


@dataclass(frozen=True)
class PageQuery:
    node: str | None = None  # only nodes whose name contains this text, case-insensitive
    limit: int | None = None  # nodes per page; None = all
    sort: SortKey = "node"
    order: Order = "asc"
    continue_token: str | None = None


@dataclass(frozen=True)
class ContinueToken:
    snapshot_time: float  # Snapshot.time the paging started on
    offset: int  # index of the first node of the next page in the filtered, sorted list
    fingerprint: str  # query_fingerprint() of the query the token was issued for


@dataclass(frozen=True)
class SnapshotPage:
    # The same snapshot with `nodes` and `stale` reduced to the page; summary and errors untouched.
    snapshot: Snapshot
    matched_nodes: int  # nodes matching the filter, over all pages
    continue_token: str | None  # None on the last page


def parse_page_query(
    *,
    node: str | None,
    limit: str | None,
    continue_token: str | None,
    sort: str | None,
    order: str | None,
) -> PageQuery:
    """Check raw query-string values; ValidationFailed names the first one at fault.

    `sort` defaults to `node`, `order` to `asc` for `node` and to `desc` (highest first) for the
    others. An empty `continue` is no token, as in Kubernetes' list calls. The token is decoded and
    checked against the other values here, so a bad one is refused before any work is done."""
    sort_key = _sort_key(sort)
    query = PageQuery(
        node=_node_filter(node),
        limit=_limit(limit),
        sort=sort_key,
        order=_order(order, sort_key),
        continue_token=continue_token or None,
    )
    decode_continue(query)
    return query


def _sort_key(sort: str | None) -> SortKey:
    if sort is None:
        return "node"
    if (known := _one_of(SORT_KEYS, sort)) is None:
        raise ValidationFailed(code="monitoring.sort_unknown", field="sort", params=_choice(sort, SORT_KEYS))
    return known


def _order(order: str | None, sort: SortKey) -> Order:
    if order is None:
        return "asc" if sort == "node" else "desc"
    if (known := _one_of(ORDERS, order)) is None:
        raise ValidationFailed(code="monitoring.order_unknown", field="order", params=_choice(order, ORDERS))
    return known


def _one_of(allowed: tuple[_Word, ...], value: str) -> _Word | None:
    """`value` as the one of `allowed` it is, or None."""
    return next((known for known in allowed if value == known), None)


def _choice(value: str, allowed: tuple[str, ...]) -> dict[str, object]:
    """What a refused choice names: the value given, shortened, and what is allowed."""
    return {"value": _shown(value), "allowed": ", ".join(allowed)}


def _limit(limit: str | None) -> int | None:
    if limit is None:
        return None
    said = {"value": _shown(limit), "max": MAX_PAGE_NODES}
    if not (limit.isascii() and limit.isdigit()):
        raise ValidationFailed(code="monitoring.limit_not_number", field="limit", params=said)
    # Longer digit strings are out of range anyway; int() is not asked to read thousands of digits.
    value = int(limit) if len(limit) <= 20 else MAX_PAGE_NODES + 1
    if not 1 <= value <= MAX_PAGE_NODES:
        raise ValidationFailed(code="monitoring.limit_out_of_range", field="limit", params=said)
    return value


def _node_filter(node: str | None) -> str | None:
    if node is None:
        return None
    text = node.strip()
    if len(text) > MAX_NODE_FILTER_CHARS:
        raise ValidationFailed(
            code="monitoring.node_filter_too_long",
            field="node",
            params={"length": len(text), "max": MAX_NODE_FILTER_CHARS},
        )
    return text or None


def _shown(value: str) -> str:
    """A refused value as a message quotes it: cut short, so junk cannot flood the message."""
    return value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "…"


def query_fingerprint(query: PageQuery) -> str:
    """What a continue token must have been issued for: the filter (case-folded, since the match
    ignores case), sort, order and limit. Not the token itself nor anything of the snapshot."""
    node = None if query.node is None else query.node.casefold()
    text = json.dumps([node, query.sort, query.order, query.limit], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encode_continue(token: ContinueToken) -> str:
    """base64url, without padding, of compact JSON: {"f": fingerprint, "o": offset, "t": time}."""
    body = {"f": token.fingerprint, "o": token.offset, "t": float(token.snapshot_time)}
    text = json.dumps(body, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return base64.urlsafe_b64encode(text.encode()).decode("ascii").rstrip("=")


def decode_continue(query: PageQuery) -> ContinueToken | None:
    """The token of `query`, or None when it has none. ValidationFailed (`continue`) when the token is
    not one NuFi issued or was issued for other node, sort, order or limit values."""
    if query.continue_token is None:
        return None
    token = _decoded(query.continue_token)
    if token is None:
        raise ValidationFailed(code="monitoring.continue_malformed", field="continue")
    if token.fingerprint != query_fingerprint(query):
        raise ValidationFailed(code="monitoring.continue_mismatch", field="continue")
    return token


def _decoded(text: str) -> ContinueToken | None:
    if not text or len(text) > MAX_CONTINUE_CHARS or not _TOKEN_ALPHABET.issuperset(text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, binascii.Error, RecursionError):  # JSON and UTF-8 errors are ValueErrors
        return None
    if not isinstance(body, dict) or body.keys() != _TOKEN_KEYS:
        return None
    time, offset, fingerprint = body["t"], body["o"], body["f"]
    if isinstance(time, bool) or not isinstance(time, int | float) or not math.isfinite(time):
        return None
    # Every token points past a first page.
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 1:
        return None
    if not isinstance(fingerprint, str):
        return None
    return ContinueToken(snapshot_time=float(time), offset=offset, fingerprint=fingerprint)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number a token holds")


def page_snapshot(snapshot: Snapshot, query: PageQuery, *, offset: int = 0) -> SnapshotPage:
    """The page of `query` starting at `offset` (a decoded token's), with the token of the next page
    when there is one. Each node keeps all its devices; `stale` and `not_reporting` keep the entries
    of the page's nodes."""
    if offset < 0:
        raise ValueError(f"offset must not be negative, got {offset}")
    ordered = sorted_nodes(filtered_nodes(snapshot.nodes, query.node), query.sort, query.order)
    end = len(ordered) if query.limit is None else offset + query.limit
    page = tuple(ordered[offset:end])
    on_page = {node.node for node in page}
    stale = tuple(entry for entry in snapshot.stale if entry.node in on_page)
    silent = tuple(entry for entry in snapshot.not_reporting if entry.node in on_page)
    next_token = None
    if end < len(ordered):
        next_token = encode_continue(
            ContinueToken(snapshot_time=snapshot.time, offset=end, fingerprint=query_fingerprint(query))
        )
    return SnapshotPage(
        snapshot=dataclasses.replace(snapshot, nodes=page, stale=stale, not_reporting=silent),
        matched_nodes=len(ordered),
        continue_token=next_token,
    )


def filtered_nodes(nodes: Sequence[NodeEntry], text: str | None) -> list[NodeEntry]:
    """The nodes whose name contains `text`, ignoring case; all of them when `text` is None."""
    if not text:
        return list(nodes)
    needle = text.casefold()
    return [node for node in nodes if needle in node.node.casefold()]


def sorted_nodes(nodes: Sequence[NodeEntry], sort: SortKey, order: Order) -> list[NodeEntry]:
    """`nodes` in the total order pages are cut from: by name, or by the node's highest value of
    `sort` with the nodes lacking one last in either order and ties by name ascending."""
    descending = order == "desc"
    if sort == "node":
        return sorted(nodes, key=lambda node: node.node, reverse=descending)
    value_of = _NODE_VALUES[sort]
    valued: list[tuple[float, NodeEntry]] = []
    lacking: list[NodeEntry] = []
    for node in nodes:
        value = node_value(node, value_of)
        if value is None:
            lacking.append(node)
        else:
            valued.append((-value if descending else value, node))
    valued.sort(key=lambda pair: (pair[0], pair[1].node))
    lacking.sort(key=lambda node: node.node)
    return [node for _, node in valued] + lacking


def node_value(node: NodeEntry, value_of: Callable[[DeviceEntry], float | None]) -> float | None:
    """The highest value among the node's devices; None when no device has one (NaN counts as none,
    since it would leave the order undefined)."""
    values = [value for device in node.devices if (value := value_of(device)) is not None]
    present = [value for value in values if not math.isnan(value)]
    return max(present) if present else None


def _memory_fraction(device: DeviceEntry) -> float | None:
    used, total = device.memory_used_bytes, device.memory_total_bytes
    if used is None or total is None or not total > 0:
        return None
    return used / total


_NODE_VALUES: dict[SortKey, Callable[[DeviceEntry], float | None]] = {
    "temperature": lambda device: device.temperature_celsius,
    "utilization": lambda device: device.utilization_percent,
    "memory": _memory_fraction,
}
