"""Temperature-based traffic control in a running sandbox, proven with real requests: an LPU deployment
spread over both LPU nodes answers a steady stream of requests through its Service; forcing lpu-node-1
to 95 °C at its exporter makes the answers stop coming from lpu-node-1 (none fails: lpu-node-2 answers
all of them), and lifting the force brings lpu-node-1 back after the resume hold.

Beyond temperature, over three replicas (one node holds two pods):
- one LPU reading unhealthy at its exporter (`lpu_health` forced to 0) takes the pod holding it out
  of traffic within the trip hold, two scrapes and a pass, while the other pod on its node keeps
  serving (device scope), and no request fails; healthy again, the pod is back after the resume hold;
- with a breaker of 50 % and both LPU nodes hot, only one is cut; the status, a Kubernetes Event, the
  audit log and Alertmanager (NuFi's generated `NuFiProtectionBreakerHeld`) say the breaker held, and
  cooling the held node lets it go.

Then the alerts NuFi's generated rules raise for the LPU: Prometheus loads them, and a hot device, a
silent device and a silent exporter reach Alertmanager with the device's labels and resolve. The tests
run in order and share one sandbox, one project and one deployment.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import Any

import httpx
import pytest

from e2e.e2e_sandbox_support import SandboxRun, bearer, token
from support.lpu_type import LPU_METRICS, lpu_type
from support.polling import poll, stays_true_blocking

from .alert_support import absent_url, alertmanager_alerts, delivered, never_hot
from .protection_support import (
    answering,
    audited,
    breaker_alerts,
    breaker_status,
    cooled_on_failure,
    deployment_pods,
    held_devices,
    put_policy,
    when,
)
from .thermal_pages import breaker_pages, kept_pages, thermal_pages, unmapped_health_on
from .thermal_support import COOL_NODE, HOT_NODE, POLICY, PROJECT, World, force, thermal_world

# The LPU with its health expression: the protection tests below make one unhealthy.
REGISTRATION = lpu_type(name="LPU", metrics=copy.deepcopy(LPU_METRICS) | {"health": "lpu_health"})
UNHEALTHY = {"enabled": True, "trip_hold_seconds": 2, "resume_hold_seconds": 4}


@pytest.fixture(scope="module")
def world(sandbox: SandboxRun) -> Iterator[World]:
    with thermal_world(sandbox, registration=REGISTRATION, replicas=3) as world:
        yield world


def test_both_lpu_nodes_answer_before_anything_is_hot(world: World) -> None:
    pods = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    assert {pod["node"] for pod in pods} == {HOT_NODE, COOL_NODE}, pods
    put = world.nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY)
    assert put.status_code == 200, put.text
    assert put.json()["policy"] == POLICY and put.json()["source"] == "admin"
    start = time.monotonic()
    poll(
        lambda: {n for _, n, _ in world.answers.since(start)} >= {HOT_NODE, COOL_NODE}, 30, 0.5, "both answer"
    )
    # The first pass may find no reading yet (stale); a normal state follows the first scrapes.
    poll(lambda: (world.node_status(HOT_NODE) or {}).get("state") == "normal", 30, 0.5, "hot node normal")


def test_a_hot_node_stops_receiving_requests_and_none_fails(world: World) -> None:
    force(world, HOT_NODE, 95)
    forced_at = time.monotonic()

    last_hot = poll(
        lambda: world.last_answer_before_cut(HOT_NODE, forced_at), 60, 0.5, f"requests off {HOT_NODE}"
    )
    reaction = last_hot - forced_at
    print(f"reaction: last request on {HOT_NODE} {reaction:.2f} s after the force")
    during = world.answers.since(forced_at)
    assert all(status == 200 for _, _, status in during), [s for s in during if s[2] != 200][:5]

    # The status is published once the pass that cut traffic has also recorded the trip.
    status = poll(
        lambda: (s := world.node_status(HOT_NODE)) and s["state"] == "hot" and s, 30, 0.5, "hot in the status"
    )
    assert status["hot"], status
    pods = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    off = [p for p in pods if p["node"] == HOT_NODE]
    assert off and all(not p["traffic_on"] and HOT_NODE in p["thermal_reason"] for p in off), off
    assert status["temperature_celsius"] == 95
    assert all(not pod["traffic_on"] for pod in status["pods"]), status
    node = world.kube.get(f"/api/v1/nodes/{HOT_NODE}").json()
    assert {"key": "nufi.io/thermal", "value": "hot", "effect": "NoSchedule"} in [
        {k: t[k] for k in ("key", "value", "effect")} for t in node["spec"].get("taints", [])
    ]
    cool = world.node_status(COOL_NODE)
    assert cool is not None and cool["state"] == "normal"
    events = world.nufi.get("/api/v1/thermal/events", params={"node": HOT_NODE}).json()["items"]
    assert events[0]["to_state"] == "hot" and events[0]["details"]["pods_off"], events
    kube_events = world.kube.get(
        "/api/v1/namespaces/default/events", params={"fieldSelector": f"involvedObject.name={HOT_NODE}"}
    ).json()["items"]
    assert any(e["reason"] == "ThermalTrip" for e in kube_events), kube_events


def test_admin_thermal_shows_the_hot_node_and_its_history_in_both_languages(world: World) -> None:
    with unmapped_health_on(world):
        asyncio.run(thermal_pages(world.sandbox.state["nufi_url"]))


def test_once_it_cools_it_receives_requests_again(world: World) -> None:
    assert world.control.delete(world.override_url(HOT_NODE), timeout=10).status_code in (200, 204)
    lifted = time.monotonic()
    poll(lambda: any(n == HOT_NODE for _, n, _ in world.answers.since(lifted)), 60, 0.5, f"{HOT_NODE} back")
    back = next(t for t, n, _ in world.answers.since(lifted) if n == HOT_NODE) - lifted
    print(f"recovery: first request on {HOT_NODE} {back:.2f} s after the force was lifted")
    # Not before the resume hold: the node must have stayed cool that long.
    assert back >= POLICY["resume_hold_seconds"]
    assert all(status == 200 for _, _, status in world.answers.since(lifted))
    status = poll(
        lambda: (s := world.node_status(HOT_NODE)) and s["state"] == "normal" and s, 30, 0.5, "normal status"
    )
    assert all(pod["traffic_on"] for pod in status["pods"]), status
    node = world.kube.get(f"/api/v1/nodes/{HOT_NODE}").json()
    assert not [t for t in node["spec"].get("taints") or [] if t["key"] == "nufi.io/thermal"]


def test_an_unusable_temperature_trips_nothing(world: World) -> None:
    # 0 °C is what exporters give for an unsupported field; 190 °C no device can have (implausible).
    for value in (0.0, 190.0):
        force(world, HOT_NODE, value)
        forced = time.monotonic()
        stale = poll(
            lambda: (s := world.node_status(HOT_NODE)) and s["state"] == "stale" and s,
            30,
            0.5,
            f"stale at {value}",
        )
        assert not stale["hot"] and stale["stale_reason"], stale
        # Longer than the trip hold and two scrapes: still answered by both nodes, never hot.
        stays_true_blocking(partial(never_hot, world, forced), POLICY["trip_hold_seconds"] + 3, every=0.5)
        assert HOT_NODE in {n for _, n, _ in world.answers.since(forced)}
    assert world.control.delete(world.override_url(HOT_NODE), timeout=10).status_code in (200, 204)


# --- Beyond temperature: an LPU reading unhealthy, and the circuit breaker (three replicas, so one node
# holds two pods and device scope can be seen to cut one of them only).


def test_an_unhealthy_lpu_takes_only_the_pod_holding_it_out_of_traffic(world: World) -> None:
    policy = POLICY | {"scope": "device", "unhealthy": UNHEALTHY}
    put_policy(world, policy)
    pods = poll(lambda: when(deployment_pods(world), lambda p: len(p) == 3), 60, 0.5, "three pods")
    crowded, _ = Counter(p["node"] for p in pods).most_common(1)[0]
    neighbours = sorted(p["name"] for p in pods if p["node"] == crowded)
    assert len(neighbours) == 2, pods  # both LPU nodes serve, one of them two pods
    held = poll(lambda: when(held_devices(world), lambda h: set(neighbours) <= set(h)), 30, 0.5, "held")
    sick, well = neighbours
    node, device = held[sick]
    start = time.monotonic()
    poll(lambda: answering(world, start) >= {p["name"] for p in pods}, 30, 0.25, "all three answer")

    forced = world.control.post(
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
    assert well in answering(world, last_sick)
    status = poll(lambda: when(world.node_status(node), lambda s: s["unhealthy"]), 10, 0.25, "status")
    assert status["unhealthy_devices"] == [device] and not status["hot"], status
    (shown,) = [p for p in deployment_pods(world) if p["name"] == sick]
    assert not shown["traffic_on"] and "unhealthy" in shown["thermal_reason"], shown
    events = world.kube.get(f"/api/v1/namespaces/{PROJECT}/events").json()["items"]
    assert any(e["reason"] == "UnhealthyTrip" and e["involvedObject"]["name"] == sick for e in events)

    assert world.control.delete(world.override_url(node), timeout=10).status_code in (200, 204)
    healthy_at = time.monotonic()
    poll(lambda: sick in answering(world, healthy_at), 60, 0.25, f"{sick} back")
    back = min(t for t, pod in world.answers.pods_since(healthy_at) if pod == sick) - healthy_at
    print(f"health recovery: first request on {sick} {back:.2f} s after healthy again")
    assert back >= UNHEALTHY["resume_hold_seconds"]
    assert all(status == 200 for _, _, status in world.answers.since(healthy_at))


def test_with_a_breaker_of_half_and_both_lpu_nodes_hot_only_one_is_cut(world: World) -> None:
    put_policy(
        world, POLICY | {"trip_hold_seconds": 2, "breaker": {"max_node_share": 0.5, "max_replica_share": 1.0}}
    )
    for node in (HOT_NODE, COOL_NODE):
        force(world, node, 95)
    with cooled_on_failure(world, (HOT_NODE, COOL_NODE)):
        _breaker_holds_then_releases(world, time.monotonic())


def _breaker_holds_then_releases(world: World, forced_at: float) -> None:
    breaker = poll(lambda: when(breaker_status(world), lambda b: b["held"]), 60, 0.25, "breaker held")
    assert breaker["allowed"] == 1 and breaker["total_nodes"] == 3, breaker  # the DRA node's LPUs report too
    (cut,), (held,) = breaker["cut"], breaker["waiting"]
    assert {cut, held} == {HOT_NODE, COOL_NODE}
    # The held node keeps serving, says why, and no request fails.
    start = time.monotonic()
    poll(lambda: held in {n for _, n, _ in world.answers.since(start)}, 30, 0.25, f"{held} serves")
    assert all(status == 200 for _, _, status in world.answers.since(forced_at))
    on_held = [p for p in deployment_pods(world) if p["node"] == held]
    assert on_held and all(p["traffic_on"] and "circuit breaker" in p["thermal_reason"] for p in on_held)
    assert world.node_status(held)["held"]  # type: ignore[index]
    asyncio.run(breaker_pages(world.sandbox.state["nufi_url"], held))
    node_events = world.kube.get("/api/v1/namespaces/default/events").json()["items"]
    assert any(
        e["reason"] == "ProtectionBreakerHeld" and e["involvedObject"]["name"] == held for e in node_events
    )
    (record,) = poll(lambda: audited(world, "protection.breaker_held"), 10, 0.25, "audited")
    assert record["target_id"] == "lpu" and record["after"]["held_back"] == [held]
    poll(lambda: breaker_alerts(world), 60, 0.25, "NuFiProtectionBreakerHeld in Alertmanager")

    force(world, held, 40)
    released = poll(lambda: when(breaker_status(world), lambda b: not b["held"]), 60, 0.25, "released")
    assert released["cut"] == [cut], released
    poll(lambda: audited(world, "protection.breaker_released"), 10, 0.25, "release audited")
    poll(lambda: not breaker_alerts(world), 60, 0.25, "breaker alert resolved")
    force(world, cut, 40)
    # Nothing affected any more before the next test heats a node: the cut node has resumed too.
    poll(lambda: when(breaker_status(world), lambda b: not b["affected"]), 60, 0.25, "nothing affected")


def test_the_last_replica_on_a_hot_node_keeps_serving_and_says_why_unless_full_shutoff(world: World) -> None:
    scaled = world.nufi.patch(f"/api/v1/projects/{PROJECT}/deployments/llm", json={"replicas": 1})
    assert scaled.status_code == 200, scaled.text
    (pod,) = poll(
        lambda: (
            (p := world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"])
            and len(p) == 1
            and p
        ),
        60,
        0.5,
        "one pod",
    )
    node = pod["node"]
    force(world, node, 95)
    forced = time.monotonic()

    def kept() -> dict[str, Any] | None:
        status = world.node_status(node)
        if status and status["state"] == "hot":
            (only,) = [p for p in status["pods"] if p["name"] == pod["name"]]
            return only if only["kept"] else None
        return None

    only = poll(kept, 30, 0.5, "kept as the last replica")
    assert only["traffic_on"] and "last routable replica" in only["reason"], only
    stays_true_blocking(
        lambda: all(s == 200 and n == node for _, n, s in world.answers.since(forced)), 1, every=0.1
    )
    assert world.answers.since(forced)
    # The deployment's own view says why its only pod still serves.
    (shown,) = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    assert shown["traffic_on"] and "last routable replica" in shown["thermal_reason"], shown
    annotated = world.kube.get(f"/api/v1/namespaces/{PROJECT}/pods/{pod['name']}").json()
    assert "last routable replica" in annotated["metadata"]["annotations"]["nufi.io/thermal-kept-reason"]
    asyncio.run(kept_pages(world.sandbox.state["nufi_url"]))

    allowed = world.nufi.put(
        "/api/v1/admin/thermal/policies/lpu", json={**POLICY, "allow_full_shutoff": True}
    )
    assert allowed.status_code == 200, allowed.text
    cut = time.monotonic()
    poll(lambda: any(s != 200 for _, _, s in world.answers.since(cut)), 30, 0.5, "requests refused")
    label = world.kube.get(f"/api/v1/namespaces/{PROJECT}/pods/{pod['name']}").json()["metadata"]["labels"]
    assert label["nufi.io/traffic"] == "off"
    assert world.control.delete(world.override_url(node), timeout=10).status_code in (200, 204)
    back = time.monotonic()
    poll(lambda: any(s == 200 for _, _, s in world.answers.since(back)), 60, 0.5, "served again")


# --- Alerts: the rules NuFi generated for the LPU, evaluated by the sandbox's Prometheus and delivered
# to its Alertmanager (in this module so one sandbox serves both: the deployment holds LPUs).

ALERT_HOLD_SECONDS = 2
ANOTHER = "another project"


def test_registering_the_lpu_gave_prometheus_its_rules(world: World) -> None:
    # Thermal control steps aside: these tests heat a device the last replica holds.
    off = world.nufi.put("/api/v1/admin/thermal/policies/lpu", json={**POLICY, "enabled": False})
    assert off.status_code == 200, off.text
    holds = {"for_seconds": ALERT_HOLD_SECONDS}
    body = {"hot": holds, "missing_device": holds, "exporter_down": holds}
    put = world.nufi.put("/api/v1/admin/devices/lpu/alerts", json=body)
    assert put.status_code == 200, put.text
    assert put.json()["hot_celsius"] == POLICY["trip_celsius"]
    prometheus = world.sandbox.state["prometheus_url"]

    def loaded() -> dict[str, Any] | None:
        groups = httpx.get(f"{prometheus}/api/v1/rules", timeout=10).json()["data"]["groups"]
        group = next((g for g in groups if g["name"] == "nufi-lpu"), None)
        hot = group and next(r for r in group["rules"] if r["name"] == "NuFiDeviceHot")
        return group if hot and hot["duration"] == ALERT_HOLD_SECONDS else None

    group = poll(loaded, 30, 0.5, "nufi-lpu loaded with its holds")
    assert {r["name"] for r in group["rules"]} == {
        "NuFiDeviceHot",
        "NuFiDeviceMemoryNearlyFull",
        # The LPU is registered here with its health expression.
        "NuFiDeviceUnhealthy",
        "NuFiExporterDown",
        "NuFiDeviceMissing",
        "NuFiProtectionBreakerHeld",
    }
    assert not alertmanager_alerts(world)


def test_a_hot_lpu_fires_in_alertmanager_with_its_pod_and_resolves_when_it_cools(world: World) -> None:
    (pod,) = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    nodes = world.nufi.get("/api/v1/monitoring/lpu").json()["nodes"]
    (held,) = [d for n in nodes if n["node"] == pod["node"] for d in n["devices"] if d["pod"] == pod["name"]]
    forced = world.control.post(
        world.override_url(pod["node"]),
        json={"node": pod["node"], "device": held["device"], "metric": "temperature", "value": 95},
        timeout=10,
    )
    assert forced.status_code in (200, 201), forced.text
    forced_at = time.monotonic()
    labels = {"node": pod["node"], "device": held["device"], "pod": pod["name"], "namespace": PROJECT}
    (alert,) = poll(lambda: delivered(world, "NuFiDeviceHot", **labels), 60, 0.25, "hot alert delivered")
    print(f"hot alert in Alertmanager {time.monotonic() - forced_at:.2f} s after the force")
    assert alert["labels"]["severity"] == "critical"
    assert "95" in alert["annotations"]["summary"] and "과열" in alert["annotations"]["summary_ko"]
    # Only the heated device: its neighbours stay quiet.
    assert [a["labels"]["device"] for a in alertmanager_alerts(world)] == [held["device"]]
    listed = world.nufi.get("/api/v1/alerts", params={"device_type": "lpu"}).json()["items"]
    assert [(a["rule"], a["state"], a["pod"]) for a in listed] == [("hot", "firing", pod["name"])]
    # A user of no project sees the device's alert, not whose pod it is; in Korean when asked.
    user = bearer(token(world.sandbox.state, "user", "user")) | {"Accept-Language": "ko"}
    (seen,) = world.nufi.get("/api/v1/alerts", headers=user).json()["items"]
    assert (seen["device"], seen["pod"], seen["namespace"]) == (held["device"], ANOTHER, ANOTHER)
    assert "과열" in seen["summary"] and pod["name"] not in seen["summary"]

    lifted = world.control.delete(world.override_url(pod["node"]), timeout=10)
    assert lifted.status_code in (200, 204), lifted.text
    poll(lambda: not delivered(world, "NuFiDeviceHot"), 60, 0.25, "hot alert resolved")


def test_a_silent_device_and_a_silent_exporter_fire_their_node_alerts(world: World) -> None:
    node = COOL_NODE
    url = absent_url(world, node)
    try:
        assert world.control.post(url, json={"node": node, "device": 3}, timeout=10).status_code in (200, 201)
        (missing,) = poll(lambda: delivered(world, "NuFiDeviceMissing", node=node), 60, 0.25, "missing")
        assert float(missing["annotations"]["summary"].split()[0]) == 1  # one of its four is silent
        silenced = world.control.post(url, json={"node": node, "device": None}, timeout=10)
        assert silenced.status_code in (200, 201)
        poll(lambda: delivered(world, "NuFiExporterDown", node=node), 60, 0.25, "exporter down")
        # A node reporting nothing is down, not missing devices: one alert, not two.
        poll(lambda: not delivered(world, "NuFiDeviceMissing", node=node), 60, 0.25, "missing resolved")
    finally:
        world.control.delete(url, timeout=10)
    poll(lambda: not alertmanager_alerts(world), 60, 0.25, "all resolved")


def test_deleting_the_type_removes_its_rules(world: World) -> None:
    assert world.nufi.delete(f"/api/v1/projects/{PROJECT}/deployments/llm").status_code in (200, 202, 204)
    poll(
        lambda: world.nufi.delete("/api/v1/admin/devices/lpu").status_code in (200, 204),
        60,
        0.5,
        "lpu deleted",
    )
    prometheus = world.sandbox.state["prometheus_url"]
    poll(
        lambda: (
            "nufi-lpu"
            not in {
                g["name"]
                for g in httpx.get(f"{prometheus}/api/v1/rules", timeout=10).json()["data"]["groups"]
            }
        ),
        30,
        0.5,
        "nufi-lpu gone",
    )
