"""Temperature-based traffic control in a running sandbox, proven with real requests: an LPU deployment
spread over both LPU nodes answers a steady stream of requests through its Service; forcing lpu-node-1
to 95 °C at its exporter makes the answers stop coming from lpu-node-1 (none fails: lpu-node-2 answers
all of them), and lifting the force brings lpu-node-1 back after the resume hold. Then the alerts NuFi's
generated rules raise for the LPU: Prometheus loads them, and a hot device, a silent device and a
silent exporter reach Alertmanager with the device's labels and resolve. The tests of this module run
in order and share one sandbox, one project and one deployment.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from functools import partial
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from e2e.browser_support import LOCALES, chromium, shot, sign_in, speaks
from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, bearer, token
from nufi.ui.i18n import Language, text
from support.polling import poll, stays_true_blocking

from .thermal_support import COOL_NODE, HOT_NODE, POLICY, PROJECT, World, force, thermal_world

HOT_MARK = {"ko": "과열: 트래픽 차단", "en": "Hot: traffic cut"}
KEPT_MARK = {"ko": "마지막 복제본이라 유지", "en": "kept as the last replica"}
# What the Deployments page says of the pod: its traffic cut for the heat, or kept as the last replica.
DEPLOYMENT_SAYS = {
    "cut": {"ko": "온도 제어: llm-", "en": "Thermal control: llm-"},
    "kept": {"ko": "마지막 라우팅 가능한 복제본", "en": "last routable replica"},
}
TYPE_NAME = LPU_REGISTRATION["name"]


@pytest.fixture(scope="module")
def world(sandbox: SandboxRun) -> Iterator[World]:
    with thermal_world(sandbox) as world:
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
    assert poll(lambda: world.node_status(HOT_NODE), 30, 0.5, "hot node tracked")["state"] == "normal"


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

    status = world.node_status(HOT_NODE)
    assert status is not None and status["state"] == "hot" and status["hot"], status
    pods = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    (off,) = [p for p in pods if p["node"] == HOT_NODE]
    assert not off["traffic_on"] and HOT_NODE in off["thermal_reason"], off
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
    asyncio.run(_thermal_pages(world.sandbox.state["nufi_url"]))


async def _thermal_page(browser: Browser, base: str, language: str) -> tuple[BrowserContext, Page]:
    """Admin → Thermal in `language`, signed in as the admin."""
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(base + "/admin/thermal")
    await sign_in(page, "admin")
    return context, page


async def _thermal_pages(base: str) -> None:
    async with chromium() as browser:
        for language in LOCALES:
            context, page = await _thermal_page(browser, base, language)
            live = page.get_by_test_id("thermal-live")
            await expect(live).to_contain_text(HOT_NODE, timeout=30_000)
            await expect(live).to_contain_text("95.0 °C")
            # The type by its name; the node hot and its traffic cut, red chips with their words.
            await expect(live).to_contain_text(TYPE_NAME)
            await expect(live.locator('[data-state="hot"]').first).to_be_visible()
            await expect(live.locator('[data-state="cut"]').first).to_be_visible()
            await expect(page.get_by_test_id("thermal-history")).to_contain_text(HOT_NODE)
            await expect(page.get_by_test_id("thermal-policy-lpu")).to_contain_text(TYPE_NAME)
            await _local_times(page)
            await speaks(page, language, "the Thermal page, a node cut")
            await shot(page, f"thermal-{language}-cut")
            await _dry_run(page, language)
            # The monitoring tab marks the node whose traffic is cut.
            await page.goto(base + "/?type=lpu")
            table = page.get_by_test_id("devices-table")
            await expect(table).to_contain_text(HOT_MARK[language], timeout=30_000)
            await expect(table.locator('[data-state="hot"]').first).to_be_visible()
            await speaks(page, language, "Monitoring, a node cut")
            await shot(page, f"thermal-{language}-monitoring-cut")
            await _deployment_says(page, base, language, "cut")
            await context.close()
        context = await browser.new_context(locale=LOCALES["en"], viewport={"width": 1400, "height": 1000})
        page = await context.new_page()
        await page.goto(base + "/admin/thermal")
        await sign_in(page, "user")
        await expect(page.get_by_test_id("forbidden")).to_be_visible()
        await expect(page.get_by_test_id("thermal-live")).to_have_count(0)
        await context.close()


async def _local_times(page: Page) -> None:
    """The times are on the browser's clock, UTC in their tooltip."""
    since = page.get_by_test_id("thermal-live").locator("time[data-local]").first
    await expect(since).to_have_attribute("title", re.compile(r" UTC$"))
    await expect(since).not_to_contain_text("UTC")


async def _dry_run(page: Page, language: str) -> None:
    """The LPU policy tried on the last day: the trip forced a moment ago is a would-be trip, named by
    the type's name, its start on the browser's clock with UTC in the tooltip."""
    reader: Language = "ko" if language == "ko" else "en"
    card = page.get_by_test_id("thermal-policy-lpu")
    await card.get_by_role("button", name=text(reader, "thermal.dry_run")).click()
    await expect(card).to_contain_text(text(reader, "thermal.dry_run.title", device_type=TYPE_NAME))
    episodes = card.get_by_test_id("thermal-dry-run-episodes")
    await expect(episodes).to_contain_text(HOT_NODE, timeout=30_000)
    start = episodes.locator("time[data-local]").first
    await expect(start).to_have_attribute("title", re.compile(r" UTC$"))
    await expect(start).not_to_contain_text("UTC")
    await speaks(page, language, "the Thermal page's dry run")
    await card.scroll_into_view_if_needed()
    await shot(page, f"thermal-{language}-dry-run")


async def _deployment_says(page: Page, base: str, language: str, state: str) -> None:
    """The project's Deployments page says why thermal control cut (or kept) the pod, in `language`."""
    await page.goto(f"{base}/deployments?project={PROJECT}")
    table = page.get_by_test_id("deployments-table")
    await expect(table).to_contain_text(DEPLOYMENT_SAYS[state][language], timeout=30_000)
    await speaks(page, language, f"Deployments, a pod {state}")
    await shot(page, f"thermal-{language}-deployment-{state}")


async def _kept_pages(base: str) -> None:
    async with chromium() as browser:
        for language in LOCALES:
            context, page = await _thermal_page(browser, base, language)
            live = page.get_by_test_id("thermal-live")
            await expect(live.locator('[data-state="kept"]').first).to_be_visible(timeout=30_000)
            await expect(live).to_contain_text(KEPT_MARK[language])
            # Its node is hot, but its traffic is kept, not cut: no red "cut" chip anywhere.
            await expect(live.locator('[data-state="hot"]').first).to_be_visible()
            await expect(live.locator('[data-state="cut"]')).to_have_count(0)
            await speaks(page, language, "the Thermal page, the last replica kept")
            await shot(page, f"thermal-{language}-kept")
            await _deployment_says(page, base, language, "kept")
            await context.close()


def test_once_it_cools_it_receives_requests_again(world: World) -> None:
    assert httpx.delete(world.override_url(HOT_NODE), timeout=10).status_code in (200, 204)
    lifted = time.monotonic()
    poll(lambda: any(n == HOT_NODE for _, n, _ in world.answers.since(lifted)), 60, 0.5, f"{HOT_NODE} back")
    back = next(t for t, n, _ in world.answers.since(lifted) if n == HOT_NODE) - lifted
    print(f"recovery: first request on {HOT_NODE} {back:.2f} s after the force was lifted")
    # Not before the resume hold: the node must have stayed cool that long.
    assert back >= POLICY["resume_hold_seconds"]
    assert all(status == 200 for _, _, status in world.answers.since(lifted))
    status = poll(lambda: world.node_status(HOT_NODE), 10, 0.5, "status")
    assert status["state"] == "normal" and all(pod["traffic_on"] for pod in status["pods"]), status
    node = world.kube.get(f"/api/v1/nodes/{HOT_NODE}").json()
    assert not [t for t in node["spec"].get("taints") or [] if t["key"] == "nufi.io/thermal"]


def _never_hot(world: World, since: float) -> bool:
    """Every request since `since` answered, and the hot node's status not hot."""
    status = world.node_status(HOT_NODE)
    answered = all(s == 200 for _, _, s in world.answers.since(since))
    return answered and status is not None and status["hot"] is False


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
        stays_true_blocking(partial(_never_hot, world, forced), POLICY["trip_hold_seconds"] + 3, every=0.5)
        assert HOT_NODE in {n for _, n, _ in world.answers.since(forced)}
    assert httpx.delete(world.override_url(HOT_NODE), timeout=10).status_code in (200, 204)


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
    asyncio.run(_kept_pages(world.sandbox.state["nufi_url"]))

    allowed = world.nufi.put(
        "/api/v1/admin/thermal/policies/lpu", json={**POLICY, "allow_full_shutoff": True}
    )
    assert allowed.status_code == 200, allowed.text
    cut = time.monotonic()
    poll(lambda: any(s != 200 for _, _, s in world.answers.since(cut)), 30, 0.5, "requests refused")
    label = world.kube.get(f"/api/v1/namespaces/{PROJECT}/pods/{pod['name']}").json()["metadata"]["labels"]
    assert label["nufi.io/traffic"] == "off"
    assert httpx.delete(world.override_url(node), timeout=10).status_code in (200, 204)
    back = time.monotonic()
    poll(lambda: any(s == 200 for _, _, s in world.answers.since(back)), 60, 0.5, "served again")


# --- Alerts: the rules NuFi generated for the LPU, evaluated by the sandbox's Prometheus and delivered
# to its Alertmanager (in this module so one sandbox serves both: the deployment holds LPUs).

ALERT_HOLD_SECONDS = 2
ANOTHER = "another project"


def _alertmanager(world: World) -> list[dict[str, Any]]:
    """The alerts Alertmanager holds active now (resolved ones are not listed)."""
    answer = httpx.get(f"{world.sandbox.state['alertmanager_url']}/api/v2/alerts", timeout=10)
    answer.raise_for_status()
    return [a for a in answer.json() if a["labels"].get("device_type") == "lpu"]


def _delivered(world: World, name: str, **labels: str) -> list[dict[str, Any]]:
    return [
        a
        for a in _alertmanager(world)
        if a["labels"]["alertname"] == name and all(a["labels"].get(k) == v for k, v in labels.items())
    ]


def _absent_url(world: World, node: str) -> str:
    return world.override_url(node).replace("/control/override", "/control/absent")


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
        "NuFiExporterDown",
        "NuFiDeviceMissing",
        "NuFiProtectionBreakerHeld",
    }
    assert not _alertmanager(world)


def test_a_hot_lpu_fires_in_alertmanager_with_its_pod_and_resolves_when_it_cools(world: World) -> None:
    (pod,) = world.nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["pods"]
    nodes = world.nufi.get("/api/v1/monitoring/lpu").json()["nodes"]
    (held,) = [d for n in nodes if n["node"] == pod["node"] for d in n["devices"] if d["pod"] == pod["name"]]
    forced = httpx.post(
        world.override_url(pod["node"]),
        json={"node": pod["node"], "device": held["device"], "metric": "temperature", "value": 95},
        timeout=10,
    )
    assert forced.status_code in (200, 201), forced.text
    forced_at = time.monotonic()
    labels = {"node": pod["node"], "device": held["device"], "pod": pod["name"], "namespace": PROJECT}
    (alert,) = poll(lambda: _delivered(world, "NuFiDeviceHot", **labels), 60, 0.25, "hot alert delivered")
    print(f"hot alert in Alertmanager {time.monotonic() - forced_at:.2f} s after the force")
    assert alert["labels"]["severity"] == "critical"
    assert "95" in alert["annotations"]["summary"] and "과열" in alert["annotations"]["summary_ko"]
    # Only the heated device: its neighbours stay quiet.
    assert [a["labels"]["device"] for a in _alertmanager(world)] == [held["device"]]
    listed = world.nufi.get("/api/v1/alerts", params={"device_type": "lpu"}).json()["items"]
    assert [(a["rule"], a["state"], a["pod"]) for a in listed] == [("hot", "firing", pod["name"])]
    # A user of no project sees the device's alert, not whose pod it is; in Korean when asked.
    user = bearer(token(world.sandbox.state, "user", "user")) | {"Accept-Language": "ko"}
    (seen,) = world.nufi.get("/api/v1/alerts", headers=user).json()["items"]
    assert (seen["device"], seen["pod"], seen["namespace"]) == (held["device"], ANOTHER, ANOTHER)
    assert "과열" in seen["summary"] and pod["name"] not in seen["summary"]

    lifted = httpx.delete(world.override_url(pod["node"]), timeout=10)
    assert lifted.status_code in (200, 204), lifted.text
    poll(lambda: not _delivered(world, "NuFiDeviceHot"), 60, 0.25, "hot alert resolved")


def test_a_silent_device_and_a_silent_exporter_fire_their_node_alerts(world: World) -> None:
    node = COOL_NODE
    url = _absent_url(world, node)
    try:
        assert httpx.post(url, json={"node": node, "device": 3}, timeout=10).status_code in (200, 201)
        (missing,) = poll(lambda: _delivered(world, "NuFiDeviceMissing", node=node), 60, 0.25, "missing")
        assert float(missing["annotations"]["summary"].split()[0]) == 1  # one of its four is silent
        assert httpx.post(url, json={"node": node, "device": None}, timeout=10).status_code in (200, 201)
        poll(lambda: _delivered(world, "NuFiExporterDown", node=node), 60, 0.25, "exporter down")
        # A node reporting nothing is down, not missing devices: one alert, not two.
        poll(lambda: not _delivered(world, "NuFiDeviceMissing", node=node), 60, 0.25, "missing resolved")
    finally:
        httpx.delete(url, timeout=10)
    poll(lambda: not _alertmanager(world), 60, 0.25, "all resolved")


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
