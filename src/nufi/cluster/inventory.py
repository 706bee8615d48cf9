"""Nodes and the pods bound to them, listed the way an inventory needs them.

Both lists are paginated with `limit`/`continue`, so a cluster of thousands of nodes is read in pages
rather than in one response the API server has to build in memory. Responses are decoded as plain
JSON: turning every page into client model objects costs far more than the fields used here.

A whole list, every page of it, must end within the gateway's request timeout
(NUFI_KUBE_TIMEOUT_SECONDS): an API server that accepts connections and never answers makes it fail
as Kubernetes unavailable after that long, however many pages there are.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from kubernetes_asyncio.client import CoreV1Api

from nufi.cluster.gateway import KUBERNETES, ClusterGateway
from nufi.cluster.resources import effective_requests, is_extended_resource, quantity_to_int
from nufi.errors import DependencyUnavailable

# `is_extended_resource` is read from here by the resource-key check; its rules are in `resources`.
__all__ = [
    "BOUND_LIVE_PODS",
    "PAGE_SIZE",
    "TERMINAL_PHASES",
    "BoundPod",
    "NodeResources",
    "bound_pod",
    "is_extended_resource",
    "list_bound_pods",
    "list_nodes",
    "list_raw",
    "node_resources",
]

PAGE_SIZE = 500
TIMEOUT_SETTING = "NUFI_KUBE_TIMEOUT_SECONDS"
# Pods that still hold devices: bound to a node and not finished. Terminating pods are kept on
# purpose, since the scheduler counts their resources until they are gone.
BOUND_LIVE_PODS = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


@dataclass(frozen=True)
class NodeResources:
    """A node's name with its `status.capacity` and `status.allocatable` quantities, as strings, and
    its labels."""

    name: str
    capacity: Mapping[str, str]
    allocatable: Mapping[str, str]
    labels: Mapping[str, str] = field(default_factory=dict)

    def capacity_of(self, resource: str) -> int | None:
        """How many of `resource` the node has, or None when it does not advertise it."""
        text = self.capacity.get(resource)
        return None if text is None else quantity_to_int(text)

    def allocatable_of(self, resource: str) -> int | None:
        text = self.allocatable.get(resource)
        return None if text is None else quantity_to_int(text)


@dataclass(frozen=True)
class BoundPod:
    """A pod bound to a node and not finished, with what it requests of each extended resource."""

    namespace: str
    name: str
    node: str
    phase: str
    extended_requests: Mapping[str, int]


async def list_nodes(cluster: ClusterGateway, *, page_size: int = PAGE_SIZE) -> list[NodeResources]:
    """Every node in the cluster with its capacity and allocatable."""
    items = await _list_all(cluster, "nodes", page_size=page_size)
    return [node_resources(item) for item in items]


async def list_bound_pods(cluster: ClusterGateway, *, page_size: int = PAGE_SIZE) -> list[BoundPod]:
    """Every pod in every namespace that is bound to a node and neither Succeeded nor Failed."""
    items = await _list_all(cluster, "pods", page_size=page_size, field_selector=BOUND_LIVE_PODS)
    pods = []
    for item in items:
        pod = bound_pod(item)
        # A server that ignores part of the field selector must not make finished pods count.
        if pod.node and pod.phase not in TERMINAL_PHASES:
            pods.append(pod)
    return pods


def node_resources(item: Mapping[str, Any]) -> NodeResources:
    """The fields NuFi reads of a node object, decoded from its JSON."""
    status = item.get("status") or {}
    metadata = item.get("metadata") or {}
    return NodeResources(
        name=str(metadata.get("name") or ""),
        capacity=dict(status.get("capacity") or {}),
        allocatable=dict(status.get("allocatable") or {}),
        labels=dict(metadata.get("labels") or {}),
    )


def bound_pod(item: Mapping[str, Any]) -> BoundPod:
    metadata = item.get("metadata") or {}
    spec = item.get("spec") or {}
    return BoundPod(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        node=str(spec.get("nodeName") or ""),
        phase=str((item.get("status") or {}).get("phase") or ""),
        extended_requests=effective_requests(spec),
    )


async def _list_all(
    cluster: ClusterGateway, plural: str, *, page_size: int, field_selector: str | None = None
) -> list[dict[str, Any]]:
    items, _ = await list_raw(cluster, plural, page_size=page_size, field_selector=field_selector)
    return items


async def list_raw(
    cluster: ClusterGateway, plural: str, *, page_size: int = PAGE_SIZE, field_selector: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """Every object of `plural` ("nodes" or "pods") as JSON, with the list's resourceVersion (the one
    a watch continues from)."""
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    timeout = cluster.request_timeout_seconds
    try:
        async with asyncio.timeout(timeout):
            api = CoreV1Api(await cluster.api_client())
            return await _pages(api, plural, page_size, field_selector, timeout)
    except TimeoutError as exc:
        host = cluster.api_url or "(its credentials still loading)"
        raise DependencyUnavailable(_timed_out(plural, host, timeout), dependency=KUBERNETES) from exc


def _timed_out(plural: str, host: str, timeout: float) -> str:
    return (
        f"the Kubernetes API at {host} did not answer a list of {plural} within {timeout:g} s "
        f"({TIMEOUT_SETTING})"
    )


async def _pages(
    api: CoreV1Api, plural: str, page_size: int, field_selector: str | None, request_timeout: float
) -> tuple[list[dict[str, Any]], str | None]:
    # A continue token can expire between pages (HTTP 410); the list then starts over, once.
    for attempt in (1, 2):
        items: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            page = await _page(
                api,
                plural,
                page_size,
                token,
                field_selector,
                request_timeout=request_timeout,
                restartable=attempt == 1,
            )
            if page is None:
                break
            items.extend(page.get("items") or [])
            metadata = page.get("metadata") or {}
            token = metadata.get("continue") or None
            if token is None:
                version = metadata.get("resourceVersion")
                return items, None if version is None else str(version)
    raise DependencyUnavailable(
        f"listing {plural} kept failing: the Kubernetes API expired the list while it was being read",
        dependency=KUBERNETES,
    )


async def _page(
    api: CoreV1Api,
    plural: str,
    limit: int,
    token: str | None,
    field_selector: str | None,
    *,
    request_timeout: float,
    restartable: bool,
) -> dict[str, Any] | None:
    """One page of the list; None when the continue token expired and the list should restart."""
    kwargs: dict[str, Any] = {"limit": limit, "_preload_content": False}
    if token is not None:
        kwargs["_continue"] = token
    if field_selector is not None:
        kwargs["field_selector"] = field_selector
    # Each request's own bound; the caller's asyncio.timeout bounds all pages together.
    kwargs["_request_timeout"] = request_timeout
    host = api.api_client.configuration.host
    try:
        if plural == "nodes":
            response = await api.list_node(**kwargs)
        else:
            response = await api.list_pod_for_all_namespaces(**kwargs)
        try:
            body = await response.read()
            status = response.status
        finally:
            response.release()
    except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
        raise DependencyUnavailable(_timed_out(plural, host, request_timeout), dependency=KUBERNETES) from exc
    except aiohttp.ClientError as exc:
        raise DependencyUnavailable(
            f"cannot list {plural} from the Kubernetes API at {host}: {type(exc).__name__}: {exc}",
            dependency=KUBERNETES,
        ) from exc
    if status == 410 and token is not None and restartable:
        return None
    if status != 200:
        raise DependencyUnavailable(_refusal(plural, status, body, host), dependency=KUBERNETES)
    try:
        decoded = json.loads(body)
    except ValueError as exc:
        raise DependencyUnavailable(
            f"the Kubernetes API at {host} answered a list of {plural} with something that is not JSON",
            dependency=KUBERNETES,
        ) from exc
    if not isinstance(decoded, dict):
        raise DependencyUnavailable(
            f"the Kubernetes API at {host} answered a list of {plural} with an unexpected document",
            dependency=KUBERNETES,
        )
    return decoded


def _refusal(plural: str, status: int, body: bytes, host: str) -> str:
    try:
        reason = json.loads(body).get("message")
    except (ValueError, AttributeError):
        reason = None
    detail = f"the Kubernetes API at {host} refused to list {plural} (HTTP {status})"
    if reason:
        detail += f": {reason}"
    if status in (401, 403):
        scope = "cluster-wide" if plural == "nodes" else "in all namespaces"
        detail += f"; grant NuFi's service account `list` on `{plural}` {scope}"
    return detail
