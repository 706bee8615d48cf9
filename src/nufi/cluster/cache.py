"""Nodes and pods kept from watches, per replica, the way client-go's informers keep them.

Each kind has a reflector: a paginated list, then a watch from the list's resourceVersion with
`allowWatchBookmarks=true`, both through `kube_rest`. A watch that ends cleanly is resumed from the
last resourceVersion seen (bookmarks included); 410 Gone (as an HTTP status or an ERROR event) means
that version has been compacted away, and the reflector lists again at once. Any other failure backs
off (doubling, capped) and lists again. Every `resync_seconds` the list is redone anyway, so a missed
event cannot last.

Only what NuFi reads is kept (the same decoding as `inventory`): a node's name, capacity, allocatable
and labels; a bound, unfinished pod's namespace, name, node, phase and extended-resource requests.

`state()` is the cached ClusterState while the cache is serving: both kinds listed at least once and
neither watch broken for longer than `max_outage_seconds`. Otherwise it is None and readers list
directly (`reader.ClusterReader`); `why_not_serving` says why, and so does the readiness entry.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Generic, TypeVar

import structlog

from nufi.background.jobs import CLUSTER_CACHE_NODES, CLUSTER_CACHE_PODS
from nufi.background.periodic import Backoff, Periodic
from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.inventory import (
    BOUND_LIVE_PODS,
    PAGE_SIZE,
    TERMINAL_PHASES,
    BoundPod,
    NodeResources,
    bound_pod,
    list_raw,
    node_resources,
)
from nufi.cluster.kube_rest import Gone, api_path, watch
from nufi.config import Settings, settings_part
from nufi.errors import DependencyUnavailable
from nufi.health import DependencyStatus

CLUSTER_CACHE = "cluster-cache"
SERVING = "serving from watches"
FALLING_BACK = "falling back to direct lists"

_log = structlog.stdlib.get_logger("nufi.cluster.cache")

T = TypeVar("T")

SHORT_WATCH_SECONDS = 1.0


class ShortWatch(Exception):
    """A watch closed by the other side at once, with no event in it."""


@dataclass(frozen=True)
class CacheSettings:
    enabled: bool = True
    # Relist this often even when every watch is healthy (client-go's resync, bounded).
    resync_seconds: float = 600.0
    # While a watch has been broken for longer than this, readers list directly again.
    max_outage_seconds: float = 30.0
    # Each watch asks the API server to end it after about this long (jittered up to twice that).
    watch_seconds: float = 300.0
    # Back-off after a failed list or watch: doubles from the first value up to the second.
    backoff_initial_seconds: float = 0.2
    backoff_max_seconds: float = 10.0
    page_size: int = PAGE_SIZE

    @classmethod
    def from_settings(cls, settings: Settings) -> CacheSettings:
        return cls(**settings_part(settings, "cluster_cache_", (field.name for field in fields(cls))))


@dataclass(frozen=True)
class _Kind(Generic[T]):
    """What a reflector lists and watches, and how it keeps each object."""

    job: str
    plural: str
    decode: Callable[[Mapping[str, Any]], T | None]
    key: Callable[[Mapping[str, Any]], str]
    field_selector: str | None = None


class _Reflector(Generic[T]):
    """One kind's store, fed by list + watch."""

    def __init__(self, cluster: ClusterGateway, settings: CacheSettings, kind: _Kind[T]) -> None:
        self._cluster = cluster
        self._settings = settings
        self.plural = kind.plural
        self._kind = kind
        self._items: dict[str, T] = {}
        self._snapshot: tuple[T, ...] | None = None
        self.resource_version: str | None = None
        self.synced = False
        # When the reflector last stopped receiving events, and why; None while it is watching.
        self.broken_since: float | None = time.monotonic()
        self.broken_reason = f"{kind.plural} not listed yet"
        self.lists = 0
        # When to list again (None: at the next pass, as after a failure or a 410 Gone).
        self._resync_at: float | None = None
        # One pass is one watch; the next opens at once. Only a watch that held resets the back-off:
        # a list that works while every watch fails must not.
        self.job = Periodic(
            kind.job,
            0.0,
            self.watch_once,
            backoff=Backoff(settings.backoff_initial_seconds, settings.backoff_max_seconds, jitter=True),
        )

    def items(self) -> tuple[T, ...]:
        if self._snapshot is None:
            self._snapshot = tuple(self._items[name] for name in sorted(self._items))
        return self._snapshot

    async def watch_once(self) -> None:
        """List when due (first, every `resync_seconds`, after a failure), then watch until the watch
        ends or the resync is due."""
        try:
            if self._resync_at is None or time.monotonic() >= self._resync_at:
                await self._list()
                self._resync_at = time.monotonic() + self._settings.resync_seconds
            await self._watch(self._resync_at - time.monotonic())
        except Gone as exc:
            # Not a failure: the version was compacted away; list again at once.
            self._resync_at = None
            self._break(f"the watch of {self.plural} expired (410 Gone: {exc}); listing again")
        except Exception as exc:
            self._resync_at = None
            self._break(_describe(self.plural, exc))
            raise

    def _break(self, reason: str) -> None:
        if self.broken_since is None:
            self.broken_since = time.monotonic()
        self.broken_reason = reason
        _log.info("cluster cache watch interrupted", kind=self.plural, reason=reason)

    def _healthy(self) -> None:
        self.broken_since = None
        self.broken_reason = ""
        self.job.progressed()

    async def _list(self) -> None:
        items, version = await list_raw(
            self._cluster,
            self.plural,
            page_size=self._settings.page_size,
            field_selector=self._kind.field_selector,
        )
        fresh: dict[str, T] = {}
        for item in items:
            decoded = self._kind.decode(item)
            if decoded is not None:
                fresh[self._kind.key(item)] = decoded
        self._items = fresh
        self._touch()
        self.resource_version = version
        self.synced = True
        self.lists += 1
        self._healthy()

    async def _watch(self, budget: float) -> None:
        seconds = max(1, int(min(budget, self._settings.watch_seconds * random.uniform(1.0, 2.0))))
        async with watch(
            self._cluster,
            api_path("v1", self.plural),
            resource_version=self.resource_version,
            seconds=seconds,
            field_selector=self._kind.field_selector,
        ) as events:
            self._healthy()
            opened = time.monotonic()
            received = 0
            async for event in events:
                self.apply(event)
                received += 1
        # client-go's rule: a watch that ends within a second with nothing in it is a failure (a
        # proxy or server closing watches at once), so it is paused and retried, not re-opened hot.
        if received == 0 and time.monotonic() - opened < min(SHORT_WATCH_SECONDS, seconds / 2):
            raise ShortWatch(f"the watch of {self.plural} ended at once with no events")

    def apply(self, event: Mapping[str, Any]) -> None:
        """One watch event: the store, and the resourceVersion to resume from."""
        kind = event.get("type")
        obj = event.get("object") or {}
        version = (obj.get("metadata") or {}).get("resourceVersion")
        if kind in ("ADDED", "MODIFIED", "DELETED"):
            key = self._kind.key(obj)
            decoded = self._kind.decode(obj) if kind != "DELETED" else None
            if decoded is None:
                if self._items.pop(key, None) is not None:
                    self._touch()
            else:
                self._items[key] = decoded
                self._touch()
        if version:
            self.resource_version = str(version)

    def _touch(self) -> None:
        self._snapshot = None


def _node_key(item: Mapping[str, Any]) -> str:
    return str((item.get("metadata") or {}).get("name") or "")


def _pod_key(item: Mapping[str, Any]) -> str:
    metadata = item.get("metadata") or {}
    return f"{metadata.get('namespace') or ''}/{metadata.get('name') or ''}"


def _decode_pod(item: Mapping[str, Any]) -> BoundPod | None:
    pod = bound_pod(item)
    # The field selector already keeps only these; a server that ignores part of it must not count.
    return pod if pod.node and pod.phase not in TERMINAL_PHASES else None


def _describe(plural: str, exc: Exception) -> str:
    if isinstance(exc, DependencyUnavailable):
        return exc.detail
    return f"watching {plural} failed: {type(exc).__name__}: {exc}"


_NODES = _Kind(CLUSTER_CACHE_NODES, "nodes", node_resources, _node_key)
_PODS = _Kind(CLUSTER_CACHE_PODS, "pods", _decode_pod, _pod_key, BOUND_LIVE_PODS)


class ClusterCache:
    """Nodes and pods from list + watch; a readiness check named `cluster-cache`."""

    name = CLUSTER_CACHE

    def __init__(self, cluster: ClusterGateway, settings: CacheSettings | None = None) -> None:
        self._cluster = cluster
        self.settings = settings or CacheSettings()
        self.nodes = _Reflector(cluster, self.settings, _NODES)
        self.pods = _Reflector(cluster, self.settings, _PODS)

    @property
    def configured(self) -> bool:
        return self._cluster.configured

    @property
    def jobs(self) -> tuple[Periodic, ...]:
        return (self.nodes.job, self.pods.job)

    def start(self) -> None:
        if self._cluster.configured:
            for job in self.jobs:
                job.start()

    async def close(self) -> None:
        for job in self.jobs:
            await job.close()

    def why_not_serving(self) -> str | None:
        """None while the cache is serving; else why readers list directly."""
        if not all(job.running for job in self.jobs):
            return "the cache is not running"
        for reflector in (self.nodes, self.pods):
            if not reflector.synced:
                return f"{reflector.plural} not listed yet ({reflector.broken_reason})"
        bound = self.settings.max_outage_seconds
        for reflector in (self.nodes, self.pods):
            since = reflector.broken_since
            if since is not None and time.monotonic() - since > bound:
                return (
                    f"the watch of {reflector.plural} has been broken for more than {bound:g} s "
                    f"({reflector.broken_reason})"
                )
        return None

    @property
    def serving(self) -> bool:
        return self.why_not_serving() is None

    def node_list(self) -> tuple[NodeResources, ...] | None:
        """Every node, when the cache is serving; else None."""
        return self.nodes.items() if self.serving else None

    def state(self) -> tuple[tuple[NodeResources, ...], tuple[BoundPod, ...]] | None:
        """Nodes and pods, when the cache is serving; else None."""
        return (self.nodes.items(), self.pods.items()) if self.serving else None

    async def check(self) -> DependencyStatus:
        if not self._cluster.configured:
            return DependencyStatus(
                name=self.name, ok=False, configured=False, detail="not configured: Kubernetes is not"
            )
        why = self.why_not_serving()
        # Falling back is degraded, not down: every read still answers, from direct lists.
        detail = SERVING if why is None else f"{FALLING_BACK}: {why}"
        return DependencyStatus(name=self.name, ok=True, configured=True, detail=detail)
