"""Load reported by the workloads that hold devices: what keeps a device as busy as its work makes it.

A source (an inference server, say) reports the utilisation its own work causes on the devices it
holds, with a time to live, and keeps reporting while it runs. A report replaces that source's last
one; a source that stops reporting expires, so no load is ever left behind by a process that died.
A device reported by several sources adds their loads up, to at most 100 %.

While a device has load, the load is its utilisation target; a device without any report idles, even
while a pod holds it (holding a device is not working it). Temperature and power follow through the
usual dynamics, and overrides still win over both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Load:
    source: str
    node: str
    devices: frozenset[int]
    utilization: float
    """Percent, 0 to 100."""
    expires_at: float
    """Monotonic clock time after which the report no longer counts."""


class LoadBook:
    def __init__(self) -> None:
        self._items: dict[tuple[str, str], Load] = {}

    def report(self, load: Load) -> Load | None:
        """Store ``load`` as its source's report for its node; returns the report it replaced."""
        key = (load.source, load.node)
        previous = self._items.get(key)
        self._items[key] = load
        return previous

    def active(self, now: float) -> list[Load]:
        self._expire(now)
        return sorted(self._items.values(), key=lambda item: (item.node, item.source))

    def remove(self, sources: Iterable[str] | None = None) -> list[Load]:
        """Forget the reports of ``sources`` (None: of every source) and return them."""
        wanted = None if sources is None else set(sources)
        gone = [item for item in self._items.values() if wanted is None or item.source in wanted]
        for item in gone:
            del self._items[(item.source, item.node)]
        return gone

    def levels(self, now: float) -> dict[str, dict[int, float]]:
        """Node -> device index -> summed utilisation of the active reports, capped at 100 %."""
        self._expire(now)
        levels: dict[str, dict[int, float]] = {}
        for item in self._items.values():
            node = levels.setdefault(item.node, {})
            for device in item.devices:
                node[device] = min(100.0, node.get(device, 0.0) + item.utilization)
        return levels

    def _expire(self, now: float) -> None:
        for key, item in list(self._items.items()):
            if item.expires_at <= now:
                del self._items[key]
