"""The one road to the Kubernetes API: requests, paginated lists and watches, as plain JSON.

Everything NuFi asks of Kubernetes goes through here, reads and writes alike, over the gateway's
shared ApiClient. The generated client's models cost more than the few fields NuFi reads and hide the
API server's own status messages, so bodies stay JSON. What every call gets from this module:

- a time bound: one request, or one whole list however many pages it has, ends within
  NUFI_KUBE_TIMEOUT_SECONDS (a watch is bounded by the server, which ends it after `timeoutSeconds`);
- throttling (429) waited out after the server's Retry-After (capped) while that fits the time bound,
  and passed on with its Retry-After otherwise;
- 410 Gone handled as Kubernetes means it: a list whose `continue` token expired starts over from the
  first page; a watch whose resourceVersion was compacted away raises `Gone`, for its caller to list
  again;
- errors translated in one place (`kube_errors`): a refusal (any other 4xx) is `KubeRefused`, with the
  server's status and message, for the caller to turn into a domain error (`refusal_error`); a
  transport failure, a timeout, a 5xx or throttling that outlasts the time bound is
  `DependencyUnavailable` naming Kubernetes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import aiohttp

from nufi.cluster.gateway import KUBERNETES, ClusterGateway
from nufi.cluster.kube_errors import (
    Gone,
    KubeRefused,
    answer_error,
    failed,
    list_refused,
    not_a_list,
    refusal_error,
    retry_after,
    timed_out,
    unavailable,
)
from nufi.errors import DependencyUnavailable
from nufi.logging import get_logger

# The refusals callers catch are named from here too, with the road they come from.
__all__ = [
    "JSON",
    "MERGE_PATCH",
    "PAGE_SIZE",
    "Gone",
    "Json",
    "KubeRefused",
    "Listed",
    "api_path",
    "delete_or_absent",
    "get_or_none",
    "list_collection",
    "list_items",
    "refusal_error",
    "request_json",
    "watch",
]

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
PAGE_SIZE = 500
_THROTTLED_ATTEMPTS = 3
# A list whose continue token expired starts over; this many times in all before it gives up.
_LIST_ATTEMPTS = 2
_log = get_logger("nufi.cluster.kube_rest")

Json = dict[str, Any]


@dataclass(frozen=True)
class Listed:
    """Every item of a collection, and the list's resourceVersion (the one a watch continues from)."""

    items: list[Json]
    resource_version: str | None


def api_path(group_version: str, plural: str, namespace: str | None = None, name: str | None = None) -> str:
    """The REST path of a collection or an object: `/api/v1/...` for the core group, `/apis/...` else."""
    base = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
    if namespace is not None:
        base += f"/namespaces/{quote(namespace, safe='')}"
    base += f"/{plural}"
    if name is not None:
        base += f"/{quote(name, safe='')}"
    return base


@dataclass(frozen=True)
class _Call:
    """One operation and its time bound: `deadline` on the event loop's clock, `what` for messages."""

    cluster: ClusterGateway
    method: str
    path: str
    what: str
    deadline: float

    @classmethod
    def start(cls, cluster: ClusterGateway, method: str, path: str, what: str | None = None) -> _Call:
        deadline = asyncio.get_running_loop().time() + cluster.request_timeout_seconds
        return cls(cluster, method, path, what or f"{method} {path}", deadline)

    def left(self) -> float:
        return self.deadline - asyncio.get_running_loop().time()

    def host(self) -> str:
        return self.cluster.api_url or "(its credentials still loading)"

    def timed_out(self) -> DependencyUnavailable:
        return timed_out(self.host(), self.what, self.cluster.request_timeout_seconds)


async def request_json(
    cluster: ClusterGateway,
    method: str,
    path: str,
    *,
    query: Sequence[tuple[str, str]] = (),
    body: Mapping[str, Any] | None = None,
    content_type: str = JSON,
) -> Json:
    """One request, bounded by NUFI_KUBE_TIMEOUT_SECONDS; the decoded JSON answer."""
    call = _Call.start(cluster, method, path)
    status, headers, raw = await _exchange(call, query, body, content_type)
    return _answer(call, status, headers, raw)


async def _exchange(
    call: _Call, query: Sequence[tuple[str, str]], body: Mapping[str, Any] | None, content_type: str
) -> tuple[int, Mapping[str, str], bytes]:
    """Send, and send again after a 429's Retry-After while that fits the call's time bound, at most
    `_THROTTLED_ATTEMPTS` times. A 429 is the API server's priority and fairness turning the request
    away before handling it, so repeating it is safe."""
    for attempt in range(1, _THROTTLED_ATTEMPTS + 1):
        status, headers, raw = await _send(call, query, body, content_type)
        if status != 429:
            break
        wait = retry_after(headers)
        if attempt == _THROTTLED_ATTEMPTS or wait > call.left():
            break
        _log.info(
            "kubernetes throttled a request", method=call.method, path=call.path, retry_after_seconds=wait
        )
        await asyncio.sleep(wait)
    return status, headers, raw


async def _send(
    call: _Call, query: Sequence[tuple[str, str]], body: Mapping[str, Any] | None, content_type: str
) -> tuple[int, Mapping[str, str], bytes]:
    client = await call.cluster.api_client()
    headers = {"Accept": JSON}
    if body is not None:
        headers["Content-Type"] = content_type
    try:
        async with asyncio.timeout_at(call.deadline):
            response = await client.call_api(
                call.path,
                call.method,
                query_params=list(query),
                header_params=headers,
                body=dict(body) if body is not None else None,
                auth_settings=["BearerToken"],
                _preload_content=False,
                _request_timeout=max(call.left(), 0.001),
            )
            try:
                raw = await response.read()
                # Header names stay case-insensitive (a proxy may write `retry-after`).
                return response.status, response.headers.copy(), raw
            finally:
                response.release()
    except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
        raise call.timed_out() from exc
    except aiohttp.ClientError as exc:
        raise failed(call.host(), call.what, exc) from exc


def _answer(call: _Call, status: int, headers: Mapping[str, str], raw: bytes) -> Json:
    """The decoded answer of a 2xx; the translated error of anything else."""
    decoded = _decode(raw)
    if 200 <= status < 300:
        return decoded
    message = str(decoded.get("message") or raw[:200].decode("utf-8", "replace"))
    raise answer_error(
        call.host(), call.what, status, headers, message, str(decoded.get("reason") or ""), path=call.path
    )


async def get_or_none(cluster: ClusterGateway, path: str) -> Json | None:
    """The object at `path`, or None when it does not exist; any other refusal is the cluster's
    fault, not the caller's (DependencyUnavailable)."""
    try:
        return await request_json(cluster, "GET", path)
    except KubeRefused as exc:
        if exc.status == 404:
            return None
        raise unavailable("GET", path, exc) from None


async def delete_or_absent(cluster: ClusterGateway, path: str, *, propagation: str = "Background") -> bool:
    """Delete the object at `path` (its dependents by `propagation`); False when it was not there."""
    try:
        await request_json(cluster, "DELETE", path, query=[("propagationPolicy", propagation)])
    except KubeRefused as exc:
        if exc.status == 404:
            return False
        raise unavailable("DELETE", path, exc) from None
    return True


async def list_items(
    cluster: ClusterGateway, path: str, *, label_selector: str | None = None, missing_ok: bool = False
) -> list[Json]:
    """Every item of a collection, optionally by label selector (see `list_collection`)."""
    listed = await list_collection(cluster, path, label_selector=label_selector, missing_ok=missing_ok)
    return listed.items


async def list_collection(
    cluster: ClusterGateway,
    path: str,
    *,
    label_selector: str | None = None,
    field_selector: str | None = None,
    page_size: int = PAGE_SIZE,
    missing_ok: bool = False,
) -> Listed:
    """Every item of the collection at `path`, read in pages of `page_size` (`limit`/`continue`), so
    a cluster of thousands of nodes is never one response the API server has to build in memory.

    All pages together end within NUFI_KUBE_TIMEOUT_SECONDS: an API server that accepts connections
    and never answers, or answers page after page forever, fails as Kubernetes unavailable after that
    long. A continue token that expires between pages (410 Gone) starts the list over. With
    `missing_ok`, a collection the server does not serve (a custom resource whose definition is absent,
    a namespace gone) is empty; any other refusal is DependencyUnavailable."""
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    plural = path.rsplit("/", 1)[-1]
    call = _Call.start(cluster, "GET", path, f"a list of {plural}")
    selectors = [("labelSelector", label_selector), ("fieldSelector", field_selector)]
    query = [("limit", str(page_size)), *((key, value) for key, value in selectors if value)]
    for _ in range(_LIST_ATTEMPTS):
        try:
            return await _pages(call, query)
        except Gone:
            _log.info("kubernetes expired a list while it was read; listing again", path=path)
        except KubeRefused as exc:
            if missing_ok and exc.status == 404:
                return Listed([], None)
            raise list_refused(call.host(), path, exc) from None
    raise DependencyUnavailable(
        code="kube.list_kept_expiring", params={"plural": plural}, dependency=KUBERNETES
    )


async def _pages(call: _Call, query: list[tuple[str, str]]) -> Listed:
    items: list[Json] = []
    token: str | None = None
    while True:
        page_query = query if token is None else [*query, ("continue", token)]
        status, headers, raw = await _exchange(call, page_query, None, JSON)
        if status == 410 and token is None:
            # Only an expired continue token restarts a list; a 410 for the first page is a refusal.
            raise KubeRefused(410, "Gone", str(_decode(raw).get("message") or "Gone"))
        page = _answer(call, status, headers, raw)
        if not _is_object(raw) or not isinstance(page.get("items") or [], list):
            raise not_a_list(call.host(), call.what)
        items.extend(page.get("items") or [])
        metadata = page.get("metadata") or {}
        token = metadata.get("continue") or None
        if token is None:
            version = metadata.get("resourceVersion")
            return Listed(items, None if version is None else str(version))


@asynccontextmanager
async def watch(
    cluster: ClusterGateway,
    path: str,
    *,
    resource_version: str | None,
    seconds: int,
    field_selector: str | None = None,
) -> AsyncIterator[AsyncIterator[Json]]:
    """A watch of the collection at `path` from `resource_version`, with bookmarks; yields its events
    once the server accepted it. The server ends it after `seconds`; only a silent connection is
    bounded here. 410 Gone, as the answer or as an ERROR event, raises `Gone`: list again."""
    client = await cluster.api_client()
    connect = cluster.request_timeout_seconds
    query = [("watch", "true"), ("allowWatchBookmarks", "true"), ("timeoutSeconds", str(seconds))]
    if resource_version:
        query.append(("resourceVersion", resource_version))
    if field_selector:
        query.append(("fieldSelector", field_selector))
    call = _Call.start(cluster, "GET", path, f"a watch of {path.rsplit('/', 1)[-1]}")
    try:
        response = await client.call_api(
            path,
            "GET",
            query_params=query,
            header_params={"Accept": JSON},
            auth_settings=["BearerToken"],
            _preload_content=False,
            _request_timeout=aiohttp.ClientTimeout(
                total=None, sock_connect=connect, sock_read=seconds + connect
            ),
        )
    except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
        raise call.timed_out() from exc
    except aiohttp.ClientError as exc:
        raise failed(call.host(), call.what, exc) from exc
    try:
        if response.status != 200:
            try:
                _answer(call, response.status, response.headers, await response.read())
            except Gone:
                raise
            except KubeRefused as exc:
                raise unavailable("WATCH", path, exc) from None
        yield _events(call, response)
    finally:
        response.release()


async def _events(call: _Call, response: Any) -> AsyncIterator[Json]:
    buffer = b""
    async for chunk in response.content.iter_any():
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            if line.strip():
                yield _event(call, line)
    if buffer.strip():
        yield _event(call, buffer)


def _event(call: _Call, line: bytes) -> Json:
    event = json.loads(line)
    if event.get("type") == "ERROR":
        status = event.get("object") or {}
        if status.get("code") == 410:
            raise Gone(str(status.get("message") or "expired"))
        raise DependencyUnavailable(
            code="kube.watch_error",
            params={"what": call.what, "code": status.get("code"), "message": status.get("message")},
            dependency=KUBERNETES,
        )
    return dict(event)


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except ValueError:
        return False


def _decode(raw: bytes) -> Json:
    try:
        decoded = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}
