"""Snapshot pages rendered once: the JSON of a page, kept per (type, query string, audience) together
with the snapshot version it was cut from, answered to every reader of that audience until the type's
refresher serves a new version.

A page is rendered with its `age_seconds` left out (the one thing that changes between reads of one
snapshot) and the age is put back in per answer, so a read of a kept page costs no Pydantic model and
no JSON encoding; the ETag is the hash of the body without its age, as `conditional` computes it.
Kept pages are bounded by count and by bytes, least recently used first out.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from fastapi import Response

from nufi.api.conditional import CACHE_CONTROL, entity_tag, none_match
from nufi.api.schemas.monitoring import SnapshotPageView
from nufi.monitoring.contracts import PageRead
from nufi.monitoring.snapshots.audience import Audience

MAX_PAGES = 1024
MAX_BYTES = 64 * 1024 * 1024
_AGE_FIELD = b'"age_seconds":'
_AGE_PLACEHOLDER = _AGE_FIELD + b"0.0"

PageKey = tuple[str, bytes, Audience]


@dataclass(frozen=True)
class RenderedPage:
    version: Hashable
    snapshot_time: float  # the snapshot's data_time: its age is counted from it
    head: bytes  # the body up to and including `"age_seconds":`
    tail: bytes  # the body after the age
    etag: str

    @property
    def size(self) -> int:
        return len(self.head) + len(self.tail)

    def body(self, age_seconds: float) -> bytes:
        # As the view serialises it: seconds rounded to milliseconds, a JSON number.
        return b"".join((self.head, repr(round(age_seconds, 3)).encode(), self.tail))

    def response(self, if_none_match: list[str], age_seconds: float) -> Response:
        """The page at `age_seconds`, or a 304 without a body when `If-None-Match` names its ETag."""
        headers = {"ETag": self.etag, "Cache-Control": CACHE_CONTROL}
        if none_match(if_none_match, self.etag):
            return Response(status_code=304, headers=headers)
        return Response(self.body(age_seconds), media_type="application/json", headers=headers)


def render(read: PageRead) -> RenderedPage:
    """`read`'s page as JSON, cut around its age."""
    view = SnapshotPageView.of_page(read.page)
    body = view.model_copy(update={"age_seconds": 0.0}).model_dump_json().encode()
    # The age is the third field of the object (after the type's id and the time), so the first
    # occurrence is the field itself, never text inside a value.
    at = body.index(_AGE_PLACEHOLDER)
    head, tail = body[: at + len(_AGE_FIELD)], body[at + len(_AGE_PLACEHOLDER) :]
    # The body without `"age_seconds":…,`: the tag stays while the same snapshot only gets older.
    unaged = body[:at] + tail.removeprefix(b",")
    return RenderedPage(read.version, read.page.snapshot.data_time, head, tail, "W/" + entity_tag(unaged))


class RenderedPages:
    def __init__(self, *, max_pages: int = MAX_PAGES, max_bytes: int = MAX_BYTES) -> None:
        self._max_pages = max_pages
        self._max_bytes = max_bytes
        self._pages: OrderedDict[PageKey, RenderedPage] = OrderedDict()
        self._bytes = 0
        self.rendered = 0  # pages rendered
        self.reused = 0  # answers from a kept page, by the route or without routing
        self.direct = 0  # of those, answers without routing (nufi.api.cached_reads)

    def get(self, key: PageKey, version: Hashable) -> RenderedPage | None:
        """The page kept for `key`, when it was cut from `version`."""
        page = self._pages.get(key)
        if page is None or page.version != version:
            return None
        self._pages.move_to_end(key)
        self.reused += 1
        return page

    def of(self, key: PageKey, read: PageRead) -> RenderedPage:
        """The page of `read`: the one kept for `key` when it is of the same version, else rendered
        now and kept."""
        kept = self.get(key, read.version)
        if kept is not None:
            return kept
        page = render(read)
        self.rendered += 1
        old = self._pages.pop(key, None)
        if old is not None:
            self._bytes -= old.size
        if page.size <= self._max_bytes:
            self._pages[key] = page
            self._bytes += page.size
            while len(self._pages) > self._max_pages or self._bytes > self._max_bytes:
                _, dropped = self._pages.popitem(last=False)
                self._bytes -= dropped.size
        return page

    def __len__(self) -> int:
        return len(self._pages)

    def __contains__(self, key: PageKey) -> bool:
        """Whether a page is kept for `key`, of whatever version."""
        return key in self._pages

    @property
    def bytes(self) -> int:
        return self._bytes
