"""What the protection tests of the thermal sandbox module ask of NuFi, the cluster and Alertmanager:
the deployment's pods and the devices they hold, who answered, the breaker's status, its audit records
and its alert."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import httpx

from support.polling import poll

from .thermal_support import PROJECT, World, force

T = TypeVar("T")


def when(value: T | None, holds: Callable[[T], Any]) -> T | None:
    """`value` once `holds(value)`; None before (what `poll` waits through)."""
    return value if value is not None and holds(value) else None


def deployment_pods(world: World) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    return found


def held_devices(world: World) -> dict[str, tuple[str, str]]:
    """Each pod of the deployment with the (node, device) monitoring attributes to it."""
    held = {}
    for node in world.nufi.get("/api/v1/monitoring/lpu").json()["nodes"]:
        for device in node["devices"]:
            if device["namespace"] == PROJECT and device["pod"]:
                held[device["pod"]] = (node["node"], device["device"])
    return held


def answering(world: World, since: float) -> set[str]:
    return {pod for _, pod in world.answers.pods_since(since) if pod}


def put_policy(world: World, policy: dict[str, Any]) -> None:
    put = world.nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy)
    assert put.status_code == 200, put.text
    assert put.json()["policy"] == policy


def breaker_status(world: World) -> dict[str, Any] | None:
    for entry in world.nufi.get("/api/v1/thermal/status").json()["types"]:
        if entry["device_type"] == "lpu":
            breaker: dict[str, Any] | None = entry["breaker"]
            return breaker
    return None


def audited(world: World, action: str) -> list[dict[str, Any]]:
    items = world.nufi.get("/api/v1/admin/audit", params={"target_kind": "thermal_policy"}).json()["items"]
    return [item for item in items if item["action"] == action]


def breaker_alerts(world: World) -> list[dict[str, Any]]:
    answer = httpx.get(f"{world.sandbox.state['alertmanager_url']}/api/v2/alerts", timeout=10)
    return [a for a in answer.json() if a["labels"]["alertname"] == "NuFiProtectionBreakerHeld"]


@contextlib.contextmanager
def cooled_on_failure(world: World, nodes: tuple[str, ...]) -> Iterator[None]:
    """On a failure inside, `nodes` cooled and nothing left affected before the error goes on: else
    every later test of the module starts on hot nodes and fails for this one."""
    try:
        yield
    except BaseException:
        for node in nodes:
            force(world, node, 40)
        with contextlib.suppress(AssertionError):
            poll(
                lambda: when(breaker_status(world), lambda b: not b["affected"]), 60, 0.25, "nothing affected"
            )
        raise
