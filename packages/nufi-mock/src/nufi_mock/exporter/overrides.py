"""Values forced by the control endpoint: per device or per node, optionally for a limited time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .readings import Quantity


class _Any:
    def __repr__(self) -> str:
        return "ANY"


ANY: Final = _Any()
"""In :meth:`OverrideBook.remove`: this key matches every override."""


@dataclass(frozen=True)
class Override:
    node: str
    device: int | None
    """Device index; None means every device of the node."""
    quantity: Quantity
    value: float
    """In the quantity's canonical unit."""
    expires_at: float | None
    """Monotonic clock time at which it ends; None means when deleted."""

    @property
    def key(self) -> tuple[str, int | None, Quantity]:
        return (self.node, self.device, self.quantity)


class OverrideBook:
    """The active overrides. A device's own override beats one for its whole node."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, int | None, Quantity], Override] = {}

    def put(self, override: Override) -> Override | None:
        """Store ``override``, replacing the one with the same node, device and quantity (returned)."""
        previous = self._items.get(override.key)
        self._items[override.key] = override
        return previous

    def active(self, now: float) -> list[Override]:
        self._expire(now)
        return list(self._items.values())

    def remove(
        self,
        *,
        node: str | _Any = ANY,
        device: int | _Any | None = ANY,
        quantity: Quantity | _Any = ANY,
    ) -> list[Override]:
        """Delete the overrides matching every given key and return them."""
        gone = [
            item
            for item in self._items.values()
            if (node is ANY or item.node == node)
            and (device is ANY or item.device == device)
            and (quantity is ANY or item.quantity == quantity)
        ]
        for item in gone:
            del self._items[item.key]
        return gone

    def value_for(self, node: str, device: int, quantity: Quantity, now: float) -> float | None:
        self._expire(now)
        own = self._items.get((node, device, quantity))
        if own is not None:
            return own.value
        whole = self._items.get((node, None, quantity))
        return whole.value if whole is not None else None

    def _expire(self, now: float) -> None:
        for key, item in list(self._items.items()):
            if item.expires_at is not None and item.expires_at <= now:
                del self._items[key]
