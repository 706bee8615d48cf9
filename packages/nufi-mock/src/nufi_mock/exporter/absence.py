"""Devices whose series vanish from /metrics, as a GPU that falls off the bus or a node whose exporter
lost its driver: per device or for a whole node, optionally for a limited time.

Only the exporter goes quiet: the device keeps its simulated state and the device plugin still
advertises it, so the node's capacity stays as it was while fewer devices report.
"""

from __future__ import annotations

from dataclasses import dataclass

from .overrides import ANY, _Any


@dataclass(frozen=True)
class Absence:
    node: str
    device: int | None
    """Device index; None means every device of the node."""
    expires_at: float | None
    """Monotonic clock time at which the device reports again; None means when deleted."""

    @property
    def key(self) -> tuple[str, int | None]:
        return (self.node, self.device)


class AbsenceBook:
    def __init__(self) -> None:
        self._items: dict[tuple[str, int | None], Absence] = {}

    def put(self, absence: Absence) -> Absence | None:
        """Store ``absence``, replacing the one for the same node and device (returned)."""
        previous = self._items.get(absence.key)
        self._items[absence.key] = absence
        return previous

    def active(self, now: float) -> list[Absence]:
        self._expire(now)
        return list(self._items.values())

    def remove(self, *, node: str | _Any = ANY, device: int | _Any | None = ANY) -> list[Absence]:
        """Delete the absences matching every given key and return them."""
        gone = [
            item
            for item in self._items.values()
            if (node is ANY or item.node == node) and (device is ANY or item.device == device)
        ]
        for item in gone:
            del self._items[item.key]
        return gone

    def is_absent(self, node: str, device: int, now: float) -> bool:
        self._expire(now)
        return (node, device) in self._items or (node, None) in self._items

    def _expire(self, now: float) -> None:
        for key, item in list(self._items.items()):
            if item.expires_at is not None and item.expires_at <= now:
                del self._items[key]
