"""Protection beyond temperature in a running sandbox, proven with real requests: an LPU deployment of
three replicas over both LPU nodes takes steady requests through its Service.

- One LPU reading unhealthy at its exporter (`lpu_health` forced to 0) takes the pod holding it out of
  traffic within the trip hold, two scrapes and a pass; the other pod on the same node keeps serving
  (device scope), and no request fails. Healthy again, the pod is back after the resume hold.
- With a breaker of 50 % and both LPU nodes hot, only one is cut; the status, a Kubernetes Event, the
  audit log and Alertmanager (NuFi's generated `NuFiProtectionBreakerHeld`) say the breaker held.
  Cooling the held node lets the breaker go, and it is said again.

The tests run in order and share one sandbox, one project and one deployment.
"""

from __future__ import annotations

import copy
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest

from e2e.e2e_sandbox_support import SandboxRun
from support.lpu_type import LPU_METRICS, lpu_type
from support.polling import poll

from .thermal_support import COOL_NODE, HOT_NODE, POLICY, PROJECT, World, force, thermal_world

REGISTRATION = lpu_type(name="LPU", metrics=copy.deepcopy(LPU_METRICS) | {"health": "lpu_health"})
UNHEALTHY = {"enabled": True, "trip_hold_seconds": 2, "resume_hold_seconds": 4}


@pytest.fixture(scope="module")
def world(sandbox: SandboxRun) -> Iterator[World]:
    with thermal_world(sandbox, registration=REGISTRATION, replicas=3) as world:
        yield world


T = TypeVar("T")


def _when(value: T | None, holds: Callable[[T], Any]) -> T | None:
    """`value` once `holds(value)`; None before (what `poll` waits through)."""
    return value if value is not None and holds(value) else None


def _pods(world: World) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    return found


def _held_devices(world: World) -> dict[str, tuple[str, str]]:
    """Each pod of the deployment with the (node, device) monitoring attributes to it."""
    held = {}
    for node in world.nufi.get("/api/v1/monitoring/lpu").json()["nodes"]:
        for device in node["devices"]:
            if device["namespace"] == PROJECT and device["pod"]:
                held[device["pod"]] = (node["node"], device["device"])
    return held


def _answering(world: World, since: float) -> set[str]:
    return {pod for _, pod in world.answers.pods_since(since) if pod}


def _put(world: World, policy: dict[str, Any]) -> None:
    put = world.nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy)
    assert put.status_code == 200, put.text
    assert put.json()["policy"] == policy


def test_an_unhealthy_lpu_takes_only_the_pod_holding_it_out_of_traffic(world: World) -> None:
    policy = POLICY | {"scope": "device", "unhealthy": UNHEALTHY}
    _put(world, policy)
    pods = poll(lambda: _when(_pods(world), lambda p: len(p) == 3), 60, 0.5, "three pods")
    crowded, _ = Counter(p["node"] for p in pods).most_common(1)[0]
    neighbours = sorted(p["name"] for p in pods if p["node"] == crowded)
    assert len(neighbours) == 2, pods  # both LPU nodes serve, one of them two pods
    held = poll(lambda: _when(_held_devices(world), lambda h: set(neighbours) <= set(h)), 30, 0.5, "held")
    sick, well = neighbours
    node, device = held[sick]
    start = time.monotonic()
    poll(lambda: _answering(world, start) >= {p["name"] for p in pods}, 30, 0.25, "all three answer")

    forced = httpx.post(
        world.override_url(node),
        json={"node": node, "device": device, "metric": "health", "value": 0, "duration_seconds": 600},
        timeout=10,
    )
    assert forced.status_code in (200, 201), forced.text
    forced_at = time.monotonic()

    def cut() -> float | None:
        seen = world.answers.pods_since(forced_at)
        last = max((t for t, pod in seen if pod == sick), default=forced_at)
        after = [pod for t, pod in seen if t > last]
        return last if len(after) >= 40 and sick not in after and None not in after else None

    last_sick = poll(cut, 60, 0.25, f"requests off {sick}")
    print(f"health reaction: last request on {sick} {last_sick - forced_at:.2f} s after the force")
    assert all(status == 200 for _, _, status in world.answers.since(forced_at))
    # The other pod on the same node kept serving: the device, not the node, left traffic.
    assert well in _answering(world, last_sick)
    status = poll(lambda: _when(world.node_status(node), lambda s: s["unhealthy"]), 10, 0.25, "status")
    assert status["unhealthy_devices"] == [device] and not status["hot"], status
    (shown,) = [p for p in _pods(world) if p["name"] == sick]
    assert not shown["traffic_on"] and "unhealthy" in shown["thermal_reason"], shown
    events = world.kube.get(f"/api/v1/namespaces/{PROJECT}/events").json()["items"]
    assert any(e["reason"] == "UnhealthyTrip" and e["involvedObject"]["name"] == sick for e in events)

    assert httpx.delete(world.override_url(node), timeout=10).status_code in (200, 204)
    healthy_at = time.monotonic()
    poll(lambda: sick in _answering(world, healthy_at), 60, 0.25, f"{sick} back")
    back = min(t for t, pod in world.answers.pods_since(healthy_at) if pod == sick) - healthy_at
    print(f"health recovery: first request on {sick} {back:.2f} s after healthy again")
    assert back >= UNHEALTHY["resume_hold_seconds"]
    assert all(status == 200 for _, _, status in world.answers.since(healthy_at))


def _breaker(world: World) -> dict[str, Any] | None:
    for entry in world.nufi.get("/api/v1/thermal/status").json()["types"]:
        if entry["device_type"] == "lpu":
            breaker: dict[str, Any] | None = entry["breaker"]
            return breaker
    return None


def _audited(world: World, action: str) -> list[dict[str, Any]]:
    items = world.nufi.get("/api/v1/admin/audit", params={"target_kind": "thermal_policy"}).json()["items"]
    return [item for item in items if item["action"] == action]


def _delivered(world: World) -> list[dict[str, Any]]:
    answer = httpx.get(f"{world.sandbox.state['alertmanager_url']}/api/v2/alerts", timeout=10)
    return [a for a in answer.json() if a["labels"]["alertname"] == "NuFiProtectionBreakerHeld"]


def test_with_a_breaker_of_half_and_both_lpu_nodes_hot_only_one_is_cut(world: World) -> None:
    _put(
        world, POLICY | {"trip_hold_seconds": 2, "breaker": {"max_node_share": 0.5, "max_replica_share": 1.0}}
    )
    for node in (HOT_NODE, COOL_NODE):
        force(world, node, 95)
    forced_at = time.monotonic()
    breaker = poll(lambda: _when(_breaker(world), lambda b: b["held"]), 60, 0.25, "breaker held")
    assert breaker["allowed"] == 1 and breaker["total_nodes"] == 2, breaker
    (cut,), (held,) = breaker["cut"], breaker["waiting"]
    assert {cut, held} == {HOT_NODE, COOL_NODE}
    # The held node keeps serving, says why, and no request fails.
    start = time.monotonic()
    poll(lambda: held in {n for _, n, _ in world.answers.since(start)}, 30, 0.25, f"{held} serves")
    assert all(status == 200 for _, _, status in world.answers.since(forced_at))
    on_held = [p for p in _pods(world) if p["node"] == held]
    assert on_held and all(p["traffic_on"] and "circuit breaker" in p["thermal_reason"] for p in on_held)
    assert world.node_status(held)["held"]  # type: ignore[index]
    node_events = world.kube.get("/api/v1/namespaces/default/events").json()["items"]
    assert any(
        e["reason"] == "ProtectionBreakerHeld" and e["involvedObject"]["name"] == held for e in node_events
    )
    (record,) = poll(lambda: _audited(world, "protection.breaker_held"), 10, 0.25, "audited")
    assert record["target_id"] == "lpu" and record["after"]["held_back"] == [held]
    poll(lambda: _delivered(world), 60, 0.25, "NuFiProtectionBreakerHeld in Alertmanager")

    force(world, held, 40)
    released = poll(lambda: _when(_breaker(world), lambda b: not b["held"]), 60, 0.25, "released")
    assert released["cut"] == [cut], released
    poll(lambda: _audited(world, "protection.breaker_released"), 10, 0.25, "release audited")
    poll(lambda: not _delivered(world), 60, 0.25, "breaker alert resolved")
    force(world, cut, 40)
