"""The watch cache's reflectors and the ClusterReader over the one road, with a fake ApiClient: a watch
resumes from the last resourceVersion, 410 Gone lists again, and reads come from the cache only while
it serves."""

from __future__ import annotations

import itertools
import time
from typing import Any

from nufi.cluster import ClusterReader
from nufi.cluster.cache import CacheSettings, ClusterCache
from support.polling import eventually

from .test_server_cluster_kube_rest import Answer, FakeApi, Request, gateway, lines, page

FAST = CacheSettings(watch_seconds=5, backoff_initial_seconds=0.01, backoff_max_seconds=0.02)
# A watch with nothing to say: the server holds it open a while, then ends it.
QUIET = Answer(200, chunks=[], delay=0.05)


def node(name: str, version: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "resourceVersion": version}, "status": {"capacity": {}}}


class NodesServer:
    """Nodes: a list at version 7, then watches. The first watch adds `b` (version 8) and ends; the
    second, from 8, is told its version is gone; after the list that follows, watches stay quiet."""

    def __init__(self) -> None:
        self.watched_from: list[str | None] = []
        self.lists = 0

    def respond(self, request: Request) -> Answer:
        watching = request.query.get("watch") == "true"
        if request.path != "/api/v1/nodes":
            return QUIET if watching else Answer(200, page([]))
        if not watching:
            self.lists += 1
            return Answer(200, page(["a"], version="7"))
        self.watched_from.append(request.query.get("resourceVersion"))
        if len(self.watched_from) == 1:
            return Answer(200, chunks=lines({"type": "ADDED", "object": node("b", "8")}))
        if len(self.watched_from) == 2:
            return Answer(410, {"kind": "Status", "code": 410, "message": "too old resource version"})
        return QUIET


async def test_a_watch_resumes_from_the_last_version_and_lists_again_after_410_gone() -> None:
    server = NodesServer()
    cache = ClusterCache(gateway(FakeApi(server.respond)), FAST)
    cache.start()
    try:
        await eventually(
            lambda: _assert(server.lists >= 2 and len(server.watched_from) >= 3, server), within=5
        )
    finally:
        await cache.close()
    # Listed at 7, watched from 7; resumed from 8 (the event's version); gone, so listed and watched
    # from the new list's version again.
    assert server.watched_from[:3] == ["7", "8", "7"]


async def test_the_reader_lists_until_the_cache_serves_and_then_asks_nothing() -> None:
    api = FakeApi(
        lambda r: QUIET if r.query.get("watch") == "true" else Answer(200, page(["a"], version="7"))
    )
    cluster = gateway(api)
    assert [n.name for n in (await ClusterReader(cluster).state()).nodes] == ["a"]
    cache = ClusterCache(cluster, FAST)
    reader = ClusterReader(cluster, cache)
    # Not started: the reader lists.
    listed = len(api.requests)
    assert [n.name for n in await reader.nodes()] == ["a"] and len(api.requests) == listed + 1
    cache.start()
    try:
        await eventually(lambda: _assert(cache.serving, cache.why_not_serving()), within=5)
        asked = len([r for r in api.requests if r.query.get("watch") != "true"])
        assert [n.name for n in (await reader.state()).nodes] == ["a"]
        assert [n.name for n in await reader.nodes()] == ["a"]
        assert len([r for r in api.requests if r.query.get("watch") != "true"]) == asked
    finally:
        await cache.close()


def _assert(condition: bool, why: object) -> None:
    assert condition, why


async def test_watches_closed_at_once_are_paused_and_not_reopened_hot() -> None:
    # A proxy that ends every watch at once with nothing in it: without client-go's "very short
    # watch" rule the reflector re-lists and re-watches in a tight loop against the API server.
    opened: list[float] = []

    def respond(request: Request) -> Answer:
        if request.query.get("watch") == "true":
            if request.path == "/api/v1/nodes":
                opened.append(time.monotonic())
            return Answer(200, chunks=[])
        return Answer(200, page(["a"], version="7"))

    pause = CacheSettings(watch_seconds=5, backoff_initial_seconds=0.2, backoff_max_seconds=0.4)
    cache = ClusterCache(gateway(FakeApi(respond)), pause)
    cache.start()
    try:
        await eventually(lambda: _assert(len(opened) >= 4, opened), within=20)
    finally:
        await cache.close()
    # Each pause is at least half the back-off (it is jittered between half and all of it).
    gaps = [later - earlier for earlier, later in itertools.pairwise(opened)]
    assert min(gaps) >= 0.09, gaps
