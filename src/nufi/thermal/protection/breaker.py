"""The circuit breaker over a device type's nodes: protection may cut at most a share of them at once.

When more nodes are affected (hot, unhealthy) than the share allows, the ones already cut stay cut (no
needless switch), then the longest affected, then by name; the others keep their traffic, held back,
and say why. It holds only while too many are affected: as soon as few enough are, every affected node
is cut as usual, with no reset needed. NVIDIA NVSentinel's breaker, the example, counts cordoned nodes
and stays tripped until an operator resets it; here a held node is never cut behind anyone's back and
nothing waits for a person to come back.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass

from nufi.thermal.policy import Breaker


@dataclass(frozen=True)
class BreakerStatus:
    total_nodes: int
    allowed: int
    # Nodes a condition trips, those protection acts on, and those the breaker holds back.
    affected: tuple[str, ...] = ()
    cut: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()

    @property
    def held(self) -> bool:
        return bool(self.waiting)


def hold(
    affected: Mapping[str, float], cut_now: Set[str], total_nodes: int, breaker: Breaker
) -> BreakerStatus:
    """`affected` maps each affected node to since when; `cut_now` are those cut at present."""
    allowed = breaker.allowed(breaker.max_node_share, total_nodes)
    ordered = sorted(affected, key=lambda node: (node not in cut_now, affected[node], node))
    return BreakerStatus(
        total_nodes=total_nodes,
        allowed=allowed,
        affected=tuple(sorted(affected)),
        cut=tuple(sorted(ordered[:allowed])),
        waiting=tuple(sorted(ordered[allowed:])),
    )
