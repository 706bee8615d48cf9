"""The dry run replays what the live controller did, against a real Prometheus scraping the mock
exporter: an incident forced with the exporter's override (one device of a node at 95 °C for a few
seconds) is cut by the controller and found by the dry run, starting within one scrape interval of the
controller's trip and peaking at the forced value; a policy with a higher trip finds none. The other
conditions replay the same way: a device forced unhealthy, and the admin's own expression."""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.engines import metrics_server
from support.lpu_type import LPU_METRICS, lpu_type
from support.polling import until
from support.thermal_policy import thermal_policy
from support.world import World, serve

SCRAPE_SECONDS = 1.0
HEAT_SECONDS = 8
HOT_NODE = "lpu-node-1"
PEAK = 95.0
POLICY = thermal_policy()


@pytest.fixture(scope="module")
def exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The mock exporter for the world's LPU nodes; yields its address."""
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--profile", "lpu", "--nodes", "lpu-node-1,lpu-node-2", "--devices-per-node", "4"]
    argv += ["--no-pod-resources", "--interval", "0.5", "--log-format", "json"]
    address = f"127.0.0.1:{port}"
    process = ManagedProcess("thermal-dry-run-exporter", argv, log_dir=tmp_path_factory.mktemp("exporter"))
    with process:
        process.wait_ready(
            lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
            20.0,
            "answering /healthz",
        )
        yield address


@pytest.fixture(scope="module")
def scraping(
    exporter: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PrometheusServer]:
    """A metrics server of this module's own, scraping the exporter every second."""
    server = metrics_server(
        request.config,
        jobs=[ScrapeJob("lpu", [exporter], honor_labels=True)],
        scrape_interval=f"{SCRAPE_SECONDS:g}s",
        work_dir=tmp_path_factory.mktemp("prometheus"),
    )
    with server:
        yield server


@pytest.fixture
async def nufi(world: World, scraping: PrometheusServer, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi over the world's cluster, reading this module's Prometheus, its controller passing often."""
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        update={
            "prometheus_url": scraping.url,
            "monitoring_scrape_interval_seconds": SCRAPE_SECONDS,
            "thermal_interval_seconds": 0.2,
            "thermal_lease_name": f"thermal-dry-run-{uuid.uuid4().hex[:8]}",
            "thermal_retry_seconds": 0.2,
        }
    )
    async with serve(settings) as client:
        # With its health mapped, so the unhealthy condition has something to replay.
        registered = await client.post(
            "/api/v1/admin/devices",
            json=lpu_type(metrics={**LPU_METRICS, "health": "lpu_health"}),
            params={"force": "true"},
            headers=world.admin,
        )
        assert registered.status_code == 201, registered.text
        await scraping.wait_for_series(f'lpu_temperature_celsius{{node="{HOT_NODE}"}}')
        yield client


async def _events(nufi: httpx.AsyncClient, world: World) -> list[dict[str, Any]]:
    answer = await nufi.get("/api/v1/thermal/events", params={"node": HOT_NODE}, headers=world.admin)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["items"])


async def _dry_run(
    nufi: httpx.AsyncClient, world: World, policy: dict[str, Any], start: float, end: float
) -> dict[str, Any]:
    ran = await nufi.post(
        "/api/v1/admin/thermal/policies/lpu/dry-run",
        json={"policy": policy, "start": str(start), "end": str(end)},
        headers=world.admin,
    )
    assert ran.status_code == 200, ran.text
    return dict(ran.json())


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@pytest.mark.parametrize("scope", ["node", "device"])
async def test_an_incident_the_controller_cut_is_found_by_the_dry_run(
    nufi: httpx.AsyncClient, world: World, exporter: str, scraping: PrometheusServer, scope: str
) -> None:
    policy = {**POLICY, "scope": scope}
    put = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    assert put.status_code == 200, put.text
    # Cool before: the controller follows the node, nothing hot (a test before has been restored). The
    # range replayed starts just before the incident, so that one is not in it.
    await until(lambda: _following(nufi, world), within=30, what=f"the controller following {HOT_NODE}")
    began = time.time()
    async with httpx.AsyncClient(timeout=5) as control:
        forced = await control.post(
            f"http://{exporter}/control/override",
            json={
                "node": HOT_NODE,
                "device": 0,
                "metric": "temperature",
                "value": PEAK,
                "duration_seconds": HEAT_SECONDS,
            },
        )
    assert forced.status_code in (200, 201), forced.text
    events = await until(
        lambda: _both(nufi, world, began), within=60, what=f"{HOT_NODE} cut and restored by the controller"
    )
    tripped = _at(next(e for e in events if e["to_state"] == "hot")["at"])
    restored = _at(next(e for e in events if e["to_state"] == "normal")["at"])
    # A replayed restore may come up to a step after the controller's (a point is its step's highest):
    # asked again until Prometheus has scraped past it.
    body = await until(
        lambda: _restored_in_dry_run(nufi, world, policy, began - 2), within=30, what="the dry run's restore"
    )
    (episode,) = [e for e in body["episodes"] if e["node"] == HOT_NODE]
    assert episode["peak_celsius"] == PEAK
    # Per node the node's hottest device; per device the one device forced hot.
    assert (episode["device"] is None) == (scope == "node"), episode
    # The replay places each change at the scrape that showed it; the controller acts on that scrape some
    # time later (later still on a loaded machine, and after VictoriaMetrics' latency offset). So the
    # replay's trip lies between the heat's start and the controller's trip, and its restore between the
    # heat's end and the controller's restore, each up to a scrape (a point is its step's highest).
    seen_later = scraping.hides_newest_seconds
    slack = SCRAPE_SECONDS + seen_later
    assert began - SCRAPE_SECONDS <= _at(episode["start"]) <= tripped + slack, (episode, began, tripped)
    assert began + HEAT_SECONDS - SCRAPE_SECONDS <= _at(episode["end"]) <= restored + 2 * slack, (
        episode,
        restored,
    )
    # The fields that were there before stay: the node's (or device's) transitions and time cut.
    key = HOT_NODE if scope == "node" else f"{HOT_NODE}/{episode['device']}"
    (node,) = [n for n in body["nodes"] if n["key"] == key]
    assert [t["to"] for t in node["transitions"]] == ["hot", "normal"] and node["cut_seconds"] > 0
    higher = await _dry_run(nufi, world, {**policy, "trip_celsius": 100}, began - 2, time.time())
    assert higher["episodes"] == [] and all(not n["transitions"] for n in higher["nodes"])


async def _restored_in_dry_run(
    nufi: httpx.AsyncClient, world: World, policy: dict[str, Any], start: float
) -> dict[str, Any] | None:
    body = await _dry_run(nufi, world, policy, start, time.time())
    episodes = [e for e in body["episodes"] if e["node"] == HOT_NODE]
    assert len(episodes) <= 1, episodes
    return body if episodes and episodes[0]["end"] is not None else None


async def _following(nufi: httpx.AsyncClient, world: World) -> bool:
    status = (await nufi.get("/api/v1/thermal/status", headers=world.admin)).json()
    nodes = [n for t in status["types"] if t["device_type"] == "lpu" for n in t["nodes"]]
    return any(n["node"] == HOT_NODE and n["state"] == "normal" for n in nodes)


async def _both(nufi: httpx.AsyncClient, world: World, since: float) -> list[dict[str, Any]] | None:
    events = [e for e in await _events(nufi, world) if _at(e["at"]) >= since]
    states = {e["to_state"] for e in events}
    return events if {"hot", "normal"} <= states else None


BUSY: dict[str, Any] = {
    "enabled": True,
    "name": "saturation",
    "expression": "lpu_utilization_percent",
    "trip_at": 90.0,
    "resume_at": 50.0,
    "trip_hold_seconds": 2,
    "resume_hold_seconds": 2,
}


async def test_a_custom_condition_on_an_expression_the_admin_maps_trips_and_resumes(
    nufi: httpx.AsyncClient, world: World, exporter: str, scraping: PrometheusServer
) -> None:
    # Checked live when saved: an expression with no series is refused, naming the field.
    silent = {**POLICY, "custom": {**BUSY, "expression": "nufi_no_such_metric"}}
    refused = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=silent, headers=world.admin)
    assert refused.status_code == 422, refused.text
    assert refused.json()["field"] == "custom.expression"
    policy = {**POLICY, "trip_celsius": 140, "resume_celsius": 130, "custom": BUSY}
    put = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy, headers=world.admin)
    assert put.status_code == 200, put.text
    await until(lambda: _following(nufi, world), within=30, what=f"the controller following {HOT_NODE}")
    began = time.time()
    async with httpx.AsyncClient(timeout=5) as control:
        forced = await control.post(
            f"http://{exporter}/control/override",
            json={"node": HOT_NODE, "device": 0, "metric": "utilization", "value": 99, "duration_seconds": 6},
        )
    assert forced.status_code in (200, 201), forced.text
    events = await until(lambda: _custom(nufi, world, began), within=60, what="tripped and restored")
    tripped = next(e for e in events if e["to_state"] == "tripped")
    assert tripped["details"]["condition"] == "custom" and "saturation" in tripped["message"]
    restored = next(e for e in events if e["to_state"] == "normal")
    assert _at(restored["at"]) - _at(tripped["at"]) >= BUSY["resume_hold_seconds"]
    # The dry run replays the own condition too, from the same expression's history.
    body = await until(
        lambda: _replayed_episode(nufi, world, policy, began - 2, "custom"), within=30, what="replayed"
    )
    (episode,) = [e for e in body["episodes"] if e["condition"] == "custom"]
    assert episode["peak"] == 99 and episode["peak_celsius"] is None and episode["node"] == HOT_NODE
    seen_later = scraping.hides_newest_seconds  # as in the temperature test above
    assert abs(_at(episode["start"]) - _at(tripped["at"])) <= 2 * SCRAPE_SECONDS + seen_later, (
        episode,
        tripped,
    )
    assert body["conditions"] == ["temperature", "custom"]


async def test_a_device_that_read_unhealthy_is_found_by_the_dry_run(
    nufi: httpx.AsyncClient, world: World, exporter: str
) -> None:
    """The proposed policy protects from unhealthy devices: the seconds one device read unhealthy are
    one episode of that condition, on its node; temperature found nothing."""
    began = time.time()
    async with httpx.AsyncClient(timeout=5) as control:
        forced = await control.post(
            f"http://{exporter}/control/override",
            json={"node": HOT_NODE, "device": 1, "metric": "health", "value": 0, "duration_seconds": 4},
        )
    assert forced.status_code in (200, 201), forced.text
    policy = {**POLICY, "unhealthy": {"enabled": True, "trip_hold_seconds": 1, "resume_hold_seconds": 2}}
    body = await until(
        lambda: _replayed_episode(nufi, world, policy, began - 2, "unhealthy"), within=30, what="replayed"
    )
    assert body["conditions"] == ["temperature", "unhealthy"]
    (episode,) = body["episodes"]
    assert (episode["node"], episode["condition"], episode["peak"]) == (HOT_NODE, "unhealthy", 1)
    # Unhealthy from about the override's start for about its 4 s, plus the hold to resume.
    cut = _at(episode["end"]) - _at(episode["start"])
    assert 4 - 2 * SCRAPE_SECONDS <= cut <= 4 + 2 + 2 * SCRAPE_SECONDS, episode
    assert body["breaker"] == []


async def _replayed_episode(
    nufi: httpx.AsyncClient, world: World, policy: dict[str, Any], start: float, condition: str
) -> dict[str, Any] | None:
    """The dry run once an episode of `condition` has ended in it (Prometheus has scraped past it)."""
    body = await _dry_run(nufi, world, policy, start, time.time())
    ended = [e for e in body["episodes"] if e["condition"] == condition and e["end"] is not None]
    return body if ended else None


async def _custom(nufi: httpx.AsyncClient, world: World, since: float) -> list[dict[str, Any]] | None:
    events = [
        e
        for e in await _events(nufi, world)
        if _at(e["at"]) >= since and e["details"].get("condition") == "custom"
    ]
    states = {e["to_state"] for e in events}
    return events if {"tripped", "normal"} <= states else None
