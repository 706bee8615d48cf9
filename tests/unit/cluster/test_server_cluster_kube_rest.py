"""The one road to Kubernetes (`nufi.cluster.kube_rest`), over a fake ApiClient that answers as the
API server would: paging, 410 Gone restarts, the whole-list time bound, 429 Retry-After, watches and
the translation of errors."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from multidict import CIMultiDict

from nufi.cluster import ClusterGateway
from nufi.cluster.connection import KubeSource
from nufi.cluster.inventory import list_nodes
from nufi.cluster.kube_errors import refusal_error
from nufi.cluster.kube_rest import (
    Gone,
    KubeRefused,
    api_path,
    get_or_none,
    list_collection,
    list_items,
    request_json,
    watch,
)
from nufi.errors import Conflict, DependencyUnavailable, NotFound, ValidationFailed

HOST = "https://kube.test:6443"


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # Seconds before the answer comes (a slow or hung API server).
    delay: float = 0.0
    # A watch's body: one JSON event per line, in chunks as the server flushes them.
    chunks: Iterable[bytes] | None = None


class _Content:
    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = list(chunks)

    async def iter_any(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


class _Response:
    def __init__(self, answer: Answer) -> None:
        self.status = answer.status
        self.headers = CIMultiDict(answer.headers)
        body = answer.body
        self._raw = (
            body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else b""
        )
        self.content = _Content(answer.chunks or ())
        self.released = False

    async def read(self) -> bytes:
        return self._raw

    def release(self) -> None:
        self.released = True


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: Any


class FakeApi:
    """Stands in for kubernetes-asyncio's ApiClient: `respond` answers each request."""

    def __init__(self, respond: Callable[[Request], Answer]) -> None:
        self._respond = respond
        self.requests: list[Request] = []
        self.configuration = type("Configuration", (), {"host": HOST})()

    async def call_api(self, path: str, method: str, **kwargs: Any) -> _Response:
        request = Request(method, path, dict(kwargs.get("query_params") or []), kwargs.get("body"))
        self.requests.append(request)
        answer = self._respond(request)
        if answer.delay:
            await asyncio.sleep(answer.delay)
        return _Response(answer)

    async def close(self) -> None:
        pass


def gateway(api: FakeApi, timeout: float = 5.0) -> ClusterGateway:
    cluster = ClusterGateway(KubeSource("in-cluster"), request_timeout_seconds=timeout)
    cluster._client = api  # the fake in place of the ApiClient the gateway would build
    return cluster


def page(items: list[str], token: str | None = None, version: str = "7") -> dict[str, Any]:
    metadata: dict[str, str] = {"resourceVersion": version}
    if token:
        metadata["continue"] = token
    return {"kind": "List", "metadata": metadata, "items": [{"metadata": {"name": n}} for n in items]}


def names(items: list[dict[str, Any]]) -> list[str]:
    return [item["metadata"]["name"] for item in items]


async def test_a_list_reads_every_page_with_limit_and_continue() -> None:
    pages = {None: page(["a", "b"], "t1"), "t1": page(["c"], "t2"), "t2": page(["d"], version="42")}
    api = FakeApi(lambda r: Answer(200, pages[r.query.get("continue")]))
    listed = await list_collection(gateway(api), "/api/v1/nodes", page_size=2, label_selector="x=y")
    assert names(listed.items) == ["a", "b", "c", "d"] and listed.resource_version == "42"
    assert [r.query.get("continue") for r in api.requests] == [None, "t1", "t2"]
    assert {(r.query["limit"], r.query["labelSelector"]) for r in api.requests} == {("2", "x=y")}


async def test_an_expired_continue_token_starts_the_list_over_from_the_first_page() -> None:
    expired = {"kind": "Status", "code": 410, "reason": "Expired", "message": "continue too old"}
    seen: list[str | None] = []

    def respond(request: Request) -> Answer:
        token = request.query.get("continue")
        seen.append(token)
        if token == "old":
            return Answer(410, expired)
        if token is None and seen.count(None) == 1:
            return Answer(200, page(["stale"], "old"))
        if token is None:
            return Answer(200, page(["a"], "fresh"))
        return Answer(200, page(["b"], version="9"))

    listed = await list_collection(gateway(FakeApi(respond)), "/api/v1/pods")
    # Nothing of the expired pass is kept: the list is the second pass alone.
    assert names(listed.items) == ["a", "b"] and listed.resource_version == "9"
    assert seen == [None, "old", None, "fresh"]


async def test_a_list_that_keeps_expiring_fails_as_kubernetes_unavailable() -> None:
    def respond(request: Request) -> Answer:
        if request.query.get("continue"):
            return Answer(410, {"code": 410, "message": "too old"})
        return Answer(200, page(["a"], "t"))

    with pytest.raises(DependencyUnavailable, match="expired the list") as raised:
        await list_collection(gateway(FakeApi(respond)), "/api/v1/nodes")
    assert raised.value.extra["dependency"] == "kubernetes"


async def test_pages_that_never_end_are_bounded_as_a_whole() -> None:
    # Each page comes quickly, well within the time bound; together they would never end.
    counter = iter(range(10**6))
    api = FakeApi(lambda r: Answer(200, page([], f"t{next(counter)}"), delay=0.05))
    started = time.monotonic()
    with pytest.raises(DependencyUnavailable) as raised:
        await list_nodes(gateway(api, timeout=0.5))
    assert time.monotonic() - started < 2.0
    assert len(api.requests) > 2
    detail = raised.value.detail
    assert (
        HOST in detail and "a list of nodes within 0.5 s" in detail and "NUFI_KUBE_TIMEOUT_SECONDS" in detail
    )


async def test_throttling_is_waited_out_after_retry_after_within_the_bound() -> None:
    answers = iter([Answer(429, {"message": "slow down"}, {"Retry-After": "0"}), Answer(200, page(["a"]))])
    api = FakeApi(lambda r: next(answers))
    assert names(await list_items(gateway(api), "/api/v1/nodes")) == ["a"]
    assert len(api.requests) == 2


async def test_throttling_longer_than_the_bound_is_passed_on_with_its_retry_after() -> None:
    api = FakeApi(lambda r: Answer(429, {"message": "slow down"}, {"retry-after": "30"}))
    started = time.monotonic()
    with pytest.raises(DependencyUnavailable) as raised:
        await request_json(gateway(api, timeout=1.0), "GET", "/api/v1/namespaces/a")
    # Not slept through: 30 s do not fit a 1 s bound.
    assert time.monotonic() - started < 1.0 and len(api.requests) == 1
    assert raised.value.extra["retry_after_seconds"] == 30
    assert "HTTP 429" in raised.value.detail


async def test_throttling_in_the_middle_of_a_list_counts_against_the_whole_list() -> None:
    def respond(request: Request) -> Answer:
        if request.query.get("continue"):
            return Answer(429, {"message": "slow down"}, {"Retry-After": "2"})
        return Answer(200, page(["a"], "t"))

    with pytest.raises(DependencyUnavailable) as raised:
        await list_collection(gateway(FakeApi(respond), timeout=1.5), "/api/v1/pods")
    assert raised.value.extra["retry_after_seconds"] == 2


@pytest.mark.parametrize(
    ("status", "expected"),
    [(404, NotFound), (409, Conflict), (422, ValidationFailed), (403, DependencyUnavailable)],
)
async def test_a_refusal_is_kube_refused_and_becomes_the_domain_error(status: int, expected: type) -> None:
    api = FakeApi(lambda r: Answer(status, {"kind": "Status", "reason": "R", "message": "no, because"}))
    with pytest.raises(KubeRefused) as raised:
        await request_json(gateway(api), "POST", api_path("apps/v1", "deployments", "p"), body={"a": 1})
    assert (raised.value.status, raised.value.message) == (status, "no, because")
    assert isinstance(refusal_error(raised.value, field="name"), expected)


async def test_server_errors_and_refused_reads_are_kubernetes_unavailable() -> None:
    failing = FakeApi(lambda r: Answer(503, {"message": "etcd down"}, {"Retry-After": "5"}))
    with pytest.raises(DependencyUnavailable) as raised:
        await request_json(gateway(failing), "GET", "/api/v1/nodes/n")
    assert "HTTP 503: etcd down" in raised.value.detail and raised.value.extra["retry_after_seconds"] == 5

    forbidden = FakeApi(lambda r: Answer(403, {"message": "forbidden"}))
    with pytest.raises(DependencyUnavailable, match="grant NuFi's service account 'list' on 'pods'"):
        await list_items(gateway(forbidden), "/api/v1/pods")
    with pytest.raises(DependencyUnavailable, match="refused GET"):
        await get_or_none(gateway(forbidden), "/api/v1/namespaces/a")
    absent = FakeApi(lambda r: Answer(404, {"message": "not found"}))
    assert await get_or_none(gateway(absent), "/api/v1/namespaces/a") is None
    assert await list_items(gateway(absent), "/apis/kubeflow.org/v1/notebooks", missing_ok=True) == []


async def test_a_hung_request_ends_within_the_bound_naming_the_setting() -> None:
    api = FakeApi(lambda r: Answer(200, {}, delay=10))
    started = time.monotonic()
    with pytest.raises(DependencyUnavailable, match=r"within 0\.3 s \(NUFI_KUBE_TIMEOUT_SECONDS\)"):
        await request_json(gateway(api, timeout=0.3), "DELETE", "/api/v1/namespaces/a")
    assert time.monotonic() - started < 2.0


async def test_a_list_answered_with_something_else_than_json_is_kubernetes_unavailable() -> None:
    api = FakeApi(lambda r: Answer(200, b"<html>proxy error</html>"))
    with pytest.raises(DependencyUnavailable, match="not a list"):
        await list_nodes(gateway(api))


def lines(*events: dict[str, Any]) -> list[bytes]:
    text = b"".join(json.dumps(event).encode() + b"\n" for event in events)
    # Split mid-line, as a server's flushes may be.
    return [text[:7], text[7:]]


async def test_a_watch_resumes_from_the_version_asked_and_yields_every_event() -> None:
    node = {"metadata": {"name": "n", "resourceVersion": "8"}}
    api = FakeApi(
        lambda r: Answer(
            200, chunks=lines({"type": "ADDED", "object": node}, {"type": "BOOKMARK", "object": {}})
        )
    )
    async with watch(gateway(api), "/api/v1/nodes", resource_version="7", seconds=30) as events:
        kinds = [event["type"] async for event in events]
    assert kinds == ["ADDED", "BOOKMARK"]
    (request,) = api.requests
    assert request.query == {
        "watch": "true",
        "allowWatchBookmarks": "true",
        "timeoutSeconds": "30",
        "resourceVersion": "7",
    }


async def test_a_watch_of_a_compacted_version_is_gone_as_a_status_or_as_an_event() -> None:
    answered = FakeApi(lambda r: Answer(410, {"code": 410, "message": "too old resource version"}))
    with pytest.raises(Gone):
        async with watch(gateway(answered), "/api/v1/pods", resource_version="1", seconds=5):
            pass
    expired = {"type": "ERROR", "object": {"kind": "Status", "code": 410, "message": "too old"}}
    in_stream = FakeApi(lambda r: Answer(200, chunks=lines(expired)))
    with pytest.raises(Gone):
        async with watch(gateway(in_stream), "/api/v1/pods", resource_version="1", seconds=5) as events:
            [event async for event in events]
    broken = {"type": "ERROR", "object": {"kind": "Status", "code": 500, "message": "boom"}}
    failing = FakeApi(lambda r: Answer(200, chunks=lines(broken)))
    with pytest.raises(DependencyUnavailable, match="code 500"):
        async with watch(gateway(failing), "/api/v1/pods", resource_version="1", seconds=5) as events:
            [event async for event in events]
