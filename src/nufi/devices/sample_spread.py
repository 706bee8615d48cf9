"""Which few of an expression's samples the wizard's metric check shows: spread over the nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class OnNode(Protocol):
    @property
    def node(self) -> str | None: ...


Point = TypeVar("Point", bound=OnNode)


def across_nodes(points: Sequence[Point], size: int) -> list[Point]:
    """At most `size` of `points`, taken from each node in turn (the first device of every node, then
    the second, …), in the order given: a sample of one node's first devices would hide whether the
    others report at all."""
    by_node: dict[str | None, list[int]] = {}
    for index, point in enumerate(points):
        by_node.setdefault(point.node, []).append(index)
    rounds = max((len(indices) for indices in by_node.values()), default=0)
    turns = [indices[i] for i in range(rounds) for indices in by_node.values() if i < len(indices)]
    return [points[index] for index in sorted(turns[:size])]
