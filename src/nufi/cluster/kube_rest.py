"""Plain JSON requests to the Kubernetes API, for the objects NuFi writes (namespaces, Deployments...).

The generated client's models cost more than the few fields NuFi reads and hide the API server's own
status messages, so writes go through the shared ApiClient with the body kept as JSON. A refusal
(any 4xx) comes back as `KubeRefused` with the server's status and message, for the caller to turn
into a domain error; a transport failure, a timeout, a 5xx or throttling (429) that outlasts the time
bound is `DependencyUnavailable`, with the server's Retry-After when it gave one.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import aiohttp

from nufi.cluster.gateway import KUBERNETES, ClusterGateway
from nufi.errors import DependencyUnavailable
from nufi.logging import get_logger

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
_THROTTLED_ATTEMPTS = 3
# Longer waits are passed on to NuFi's caller rather than slept through.
_MAX_RETRY_AFTER_SECONDS = 300.0
_log = get_logger("nufi.cluster.kube_rest")

Json = dict[str, Any]


class KubeRefused(Exception):
    """The API server refused a request with a 4xx status (not found, conflict, invalid...)."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"HTTP {status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message


def api_path(group_version: str, plural: str, namespace: str | None = None, name: str | None = None) -> str:
    """The REST path of a collection or an object: `/api/v1/...` for the core group, `/apis/...` else."""
    base = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
    if namespace is not None:
        base += f"/namespaces/{quote(namespace, safe='')}"
    base += f"/{plural}"
    if name is not None:
        base += f"/{quote(name, safe='')}"
    return base


async def request_json(
    cluster: ClusterGateway,
    method: str,
    path: str,
    *,
    query: Sequence[tuple[str, str]] = (),
    body: Mapping[str, Any] | None = None,
    content_type: str = JSON,
) -> Json:
    """One request, bounded by NUFI_KUBE_TIMEOUT_SECONDS; the decoded JSON answer.

    A 429 (the API server's priority and fairness turning the request away before handling it, so
    repeating it is safe) is retried after its Retry-After while that fits the time bound, at most
    `_THROTTLED_ATTEMPTS` times; then it is `DependencyUnavailable` carrying the server's Retry-After.
    """
    timeout = cluster.request_timeout_seconds
    deadline = time.monotonic() + timeout
    for attempt in range(1, _THROTTLED_ATTEMPTS + 1):
        status, headers, raw = await _send(cluster, method, path, query, body, content_type)
        if status != 429:
            break
        wait = _retry_after(headers)
        if attempt == _THROTTLED_ATTEMPTS or time.monotonic() + wait > deadline:
            break
        _log.info("kubernetes throttled a request", method=method, path=path, retry_after_seconds=wait)
        await asyncio.sleep(wait)
    decoded = _decode(raw)
    if 200 <= status < 300:
        return decoded
    message = str(decoded.get("message") or raw[:200].decode("utf-8", "replace"))
    host = (await cluster.api_client()).configuration.host
    if status == 429:
        wait = _retry_after(headers)
        raise DependencyUnavailable(
            f"the Kubernetes API at {host} is throttling NuFi ({method} {path}: HTTP 429, retry after "
            f"{wait:g} s): {message}",
            dependency=KUBERNETES,
            retry_after_seconds=math.ceil(wait),
        )
    if 400 <= status < 500:
        raise KubeRefused(status, str(decoded.get("reason") or ""), message)
    extra: dict[str, int] = {}
    if "Retry-After" in headers:
        extra["retry_after_seconds"] = math.ceil(_retry_after(headers))
    raise DependencyUnavailable(
        f"the Kubernetes API at {host} answered {method} {path} with HTTP {status}: {message}",
        dependency=KUBERNETES,
        **extra,
    )


async def _send(
    cluster: ClusterGateway,
    method: str,
    path: str,
    query: Sequence[tuple[str, str]],
    body: Mapping[str, Any] | None,
    content_type: str,
) -> tuple[int, Mapping[str, str], bytes]:
    client = await cluster.api_client()
    timeout = cluster.request_timeout_seconds
    host = client.configuration.host
    headers = {"Accept": JSON}
    if body is not None:
        headers["Content-Type"] = content_type
    try:
        async with asyncio.timeout(timeout):
            response = await client.call_api(
                path,
                method,
                query_params=list(query),
                header_params=headers,
                body=dict(body) if body is not None else None,
                auth_settings=["BearerToken"],
                _preload_content=False,
                _request_timeout=timeout,
            )
            try:
                raw = await response.read()
                # Header names stay case-insensitive (a proxy may write `retry-after`).
                return response.status, response.headers.copy(), raw
            finally:
                response.release()
    except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
        raise DependencyUnavailable(
            f"the Kubernetes API at {host} did not answer {method} {path} within {timeout:g} s "
            "(NUFI_KUBE_TIMEOUT_SECONDS)",
            dependency=KUBERNETES,
        ) from exc
    except aiohttp.ClientError as exc:
        raise DependencyUnavailable(
            f"{method} {path} to the Kubernetes API at {host} failed: {type(exc).__name__}: {exc}",
            dependency=KUBERNETES,
        ) from exc


def _retry_after(headers: Mapping[str, str]) -> float:
    """The server's Retry-After in seconds (the API server sends whole seconds), 1 s when absent."""
    try:
        return min(max(float(headers.get("Retry-After", "1")), 0.0), _MAX_RETRY_AFTER_SECONDS)
    except ValueError:
        return 1.0


async def get_or_none(cluster: ClusterGateway, path: str) -> Json | None:
    """The object at `path`, or None when it does not exist; any other refusal is the cluster's
    fault, not the caller's (DependencyUnavailable)."""
    try:
        return await request_json(cluster, "GET", path)
    except KubeRefused as exc:
        if exc.status == 404:
            return None
        raise _unavailable("GET", path, exc) from None


async def list_items(
    cluster: ClusterGateway, path: str, *, label_selector: str | None = None, missing_ok: bool = False
) -> list[Json]:
    """Every item of a collection (paginated), optionally by label selector. With `missing_ok`, a
    collection the server does not serve (a custom resource whose definition is absent) is empty."""
    items: list[Json] = []
    token: str | None = None
    while True:
        query = [("limit", "500")]
        if label_selector:
            query.append(("labelSelector", label_selector))
        if token:
            query.append(("continue", token))
        try:
            page = await request_json(cluster, "GET", path, query=query)
        except KubeRefused as exc:
            if missing_ok and exc.status == 404:
                return []
            raise _unavailable("GET", path, exc) from None
        items.extend(page.get("items") or [])
        token = (page.get("metadata") or {}).get("continue") or None
        if token is None:
            return items


async def delete_or_absent(cluster: ClusterGateway, path: str, *, propagation: str = "Background") -> bool:
    """Delete the object at `path` (its dependents by `propagation`); False when it was not there."""
    try:
        await request_json(cluster, "DELETE", path, query=[("propagationPolicy", propagation)])
    except KubeRefused as exc:
        if exc.status == 404:
            return False
        raise _unavailable("DELETE", path, exc) from None
    return True


def _unavailable(method: str, path: str, exc: KubeRefused) -> DependencyUnavailable:
    detail = f"the Kubernetes API refused {method} {path} (HTTP {exc.status}): {exc.message}"
    if exc.status in (401, 403):
        detail += "; grant NuFi's service account the rights deploy/ describes"
    return DependencyUnavailable(detail, dependency=KUBERNETES)


def _decode(raw: bytes) -> Json:
    try:
        decoded = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}
