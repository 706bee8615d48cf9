"""What the dry run asks Prometheus: the highest reading over each step, of the hottest device per node
(or of each device), in ranges that stay within Prometheus' points per series."""

from __future__ import annotations

import itertools

from nufi.devices.spec import LabelsDraft
from nufi.monitoring.ranges.chunks import chunks
from nufi.monitoring.ranges.queries import peak_expression
from nufi.monitoring.ranges.request import PROMETHEUS_MAX_POINTS, points_between

LABELS = LabelsDraft(node="host", device="dev")


def test_per_node_the_hottest_device_at_its_highest_over_each_step() -> None:
    expression = peak_expression("temp", LABELS, by="node", window_seconds=10, resolution_seconds=2.5)
    assert expression == (
        "max_over_time((max by (host) (((max by (host, dev) (temp)) < +Inf) > -Inf))[10000ms:2500ms])"
    )
    assert "avg" not in expression


def test_per_device_each_device_at_its_highest_over_each_step() -> None:
    expression = peak_expression("temp", LABELS, by="device", window_seconds=1.75, resolution_seconds=1.75)
    assert expression == "max_over_time((((max by (host, dev) (temp)) < +Inf) > -Inf)[1750ms:1750ms])"


def test_a_long_range_at_a_fine_step_is_asked_in_parts_within_the_limit() -> None:
    day, step = 31 * 86400.0, 1.0
    parts = chunks(0.0, day, step)
    assert all(points_between(a, b, step) < PROMETHEUS_MAX_POINTS for a, b in parts)
    # Every point of the whole range in exactly one part.
    assert parts[0][0] == 0.0 and parts[-1][1] == day
    assert sum(points_between(a, b, step) for a, b in parts) == points_between(0.0, day, step)
    assert all(later[0] == earlier[1] + step for earlier, later in itertools.pairwise(parts))


def test_a_short_range_is_one_part() -> None:
    assert chunks(100.0, 400.0, 15.0) == [(100.0, 400.0)]
