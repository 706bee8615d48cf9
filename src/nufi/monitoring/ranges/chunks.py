"""A long range at a fine step asked as consecutive ranges, each within Prometheus' points per series."""

from __future__ import annotations

from nufi.monitoring.ranges.request import PROMETHEUS_MAX_POINTS


def chunks(start: float, end: float, step: float) -> list[tuple[float, float]]:
    """Consecutive (start, end) ranges covering the points start, start + step, ... up to end, each
    point in exactly one range and no range over PROMETHEUS_MAX_POINTS - 1 points."""
    per_chunk = PROMETHEUS_MAX_POINTS - 2
    found: list[tuple[float, float]] = []
    index = 0
    while start + index * step <= end:
        first = start + index * step
        last = min(start + (index + per_chunk) * step, end)
        found.append((first, last))
        index += per_chunk + 1
    return found
