"""What the sandbox's Alertmanager holds for the LPU, and whether the hot node ever was, for the tests that
heat or silence its devices."""

from __future__ import annotations

from typing import Any

import httpx

from .thermal_support import HOT_NODE, World


def alertmanager_alerts(world: World) -> list[dict[str, Any]]:
    """The alerts Alertmanager holds active now (resolved ones are not listed)."""
    answer = httpx.get(f"{world.sandbox.state['alertmanager_url']}/api/v2/alerts", timeout=10)
    answer.raise_for_status()
    return [a for a in answer.json() if a["labels"].get("device_type") == "lpu"]


def delivered(world: World, name: str, **labels: str) -> list[dict[str, Any]]:
    """The active alerts named `name` whose labels include `labels`."""
    return [
        a
        for a in alertmanager_alerts(world)
        if a["labels"]["alertname"] == name and all(a["labels"].get(k) == v for k, v in labels.items())
    ]


def absent_url(world: World, node: str) -> str:
    """The exporter control that makes a node's devices go silent."""
    return world.override_url(node).replace("/control/override", "/control/absent")


def never_hot(world: World, since: float) -> bool:
    """Every request since `since` answered, and the hot node's status not hot."""
    status = world.node_status(HOT_NODE)
    answered = all(s == 200 for _, _, s in world.answers.since(since))
    return answered and status is not None and status["hot"] is False
