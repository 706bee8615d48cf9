"""Snapshots and the overview over HTTP, against the real Prometheus scraping the mock exporter's vendor
profiles with pinned values, and the dev cluster holding the pods."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from nufi.devices.presets import OFFICIAL_PRESETS
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.engines import EXECUTION_REFUSAL
from support.polling import until

from .monitoring_app import World, bearer, lpu_type
from .monitoring_world import HOSTILE_DEVICE, HOSTILE_NODE, GiB, MiB, mine

PROBLEM = "application/problem+json"


async def snapshot(nufi: httpx.AsyncClient, user: dict[str, str], type_id: str) -> dict[str, Any]:
    response = await nufi.get(f"/api/v1/monitoring/{type_id}", headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def devices_of(body: dict[str, Any], *, only_mine: bool = False) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (node["node"], d["device"]): d
        for node in body["nodes"]
        if mine(node["node"]) or not only_mine
        for d in node["devices"]
    }


def present(devices: list[dict[str, Any]], field: str) -> list[Any]:
    return [d[field] for d in devices if d[field] is not None]


def values(device: dict[str, Any]) -> tuple[Any, ...]:
    return (
        device["utilization_percent"],
        device["memory_used_bytes"],
        device["memory_total_bytes"],
        device["temperature_celsius"],
        device["power_watts"],
    )


# -- values, per preset ------------------------------------------------------------------------------

# DCGM reports used, free and reserved in MiB; free = 81920 total - 567 reserved - 30000 used, so
# NuFi's total (used + free + reserved) is the card's 81920 MiB.
DCGM_DEVICE = (87.0, 30000 * MiB, 81920 * MiB, 71.0, 245.5)
FURIOSA_DEVICE = (55.0, 12_000_000_000, 48 * GiB, 48.5, 120.25)
RBLN_DEVICE = (33.5, 4_000_000_000, 64 * GiB, 52.5, 70.5)

PRESET_CASES = [
    (
        "nvidia-gpu",
        {("mon-gpu-1", "0"), ("mon-gpu-1", "1"), ("mon-gpu-2", "0"), ("mon-gpu-2", "1")},
        DCGM_DEVICE,
    ),
    ("furiosa-rngd", {("mon-npu-1", "npu0"), ("mon-npu-1", "npu1")}, FURIOSA_DEVICE),
    ("rebellions-atom", {("mon-atom-1", "rbln0"), ("mon-atom-1", "rbln1")}, RBLN_DEVICE),
]


@pytest.mark.parametrize(("type_id", "expected_devices", "expected"), PRESET_CASES)
async def test_each_official_preset_gives_the_exporters_values_normalised(
    nufi: httpx.AsyncClient,
    user: dict[str, str],
    type_id: str,
    expected_devices: set[tuple[str, str]],
    expected: tuple[Any, ...],
) -> None:
    body = await snapshot(nufi, user, type_id)
    assert body["device_type"] == type_id and body["errors"] == []
    assert [s for s in body["stale"] if mine(s["node"])] == []
    found = devices_of(body, only_mine=True)
    assert set(found) == expected_devices
    for key, device in found.items():
        assert values(device) == pytest.approx(expected), key
        assert isinstance(device["memory_used_bytes"], int) and isinstance(device["memory_total_bytes"], int)
    # The summary covers every listed device (other modules' series may linger in the shared Prometheus).
    listed = list(devices_of(body).values())
    summary = body["summary"]
    assert summary["devices"] == len(listed) >= len(expected_devices)
    assert summary["memory_used_bytes"] == sum(present(listed, "memory_used_bytes"))
    assert summary["power_watts"] == pytest.approx(sum(present(listed, "power_watts")))
    assert summary["max_temperature_celsius"] == max(present(listed, "temperature_celsius"))


async def test_a_custom_lpu_reports_bytes_used_and_total_and_no_power(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    body = await snapshot(nufi, user, "lpu")
    found = devices_of(body)
    assert set(found) == {(n, f"lpu{i}") for n in ("mon-lpu-1", "mon-lpu-2") for i in range(4)}
    for i in range(4):
        utilization = 90.0 if i == 2 else 40.0
        assert values(found["mon-lpu-1", f"lpu{i}"]) == (utilization, 3 * GiB, 16 * GiB, 61.25, None)
        assert values(found["mon-lpu-2", f"lpu{i}"]) == (20.0, 1 * GiB, 16 * GiB, 45.5, None)
    assert body["summary"] == {
        "nodes": 2,
        "devices": 8,
        "avg_utilization_percent": (3 * 40.0 + 90.0 + 4 * 20.0) / 8,
        "memory_used_bytes": 4 * 3 * GiB + 4 * 1 * GiB,
        "memory_total_bytes": 8 * 16 * GiB,
        "max_temperature_celsius": 61.25,
        "power_watts": None,
    }
    lpu_1 = next(n for n in body["nodes"] if n["node"] == "mon-lpu-1")
    assert (lpu_1["capacity"], lpu_1["allocatable"], lpu_1["allocated"]) == (4, 4, 4)


# -- attribution -------------------------------------------------------------------------------------


async def test_the_cluster_attributes_where_the_exporter_cannot(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    lpu = {node["node"]: node for node in (await snapshot(nufi, user, "lpu"))["nodes"]}
    # One pod holds all four devices of mon-lpu-1: each device is certainly that pod's.
    assert lpu["mon-lpu-1"]["workload"] == "serving/solo"
    assert lpu["mon-lpu-1"]["pods"] == [{"namespace": "serving", "pod": "solo", "devices": 4}]
    assert {(d["pod"], d["namespace"]) for d in lpu["mon-lpu-1"]["devices"]} == {("solo", "serving")}
    # One pod holds two of mon-lpu-2's four: which two is unknown, so only the node names it.
    assert lpu["mon-lpu-2"]["workload"] == "serving/half" and lpu["mon-lpu-2"]["allocated"] == 2
    assert {(d["pod"], d["namespace"]) for d in lpu["mon-lpu-2"]["devices"]} == {(None, None)}

    gpu = {
        node["node"]: node
        for node in (await snapshot(nufi, user, "nvidia-gpu"))["nodes"]
        if mine(node["node"])
    }
    assert gpu["mon-gpu-1"]["workload"] == "shared by 2 pods"
    assert [p["pod"] for p in gpu["mon-gpu-1"]["pods"]] == ["a", "b"]
    assert (gpu["mon-gpu-2"]["workload"], gpu["mon-gpu-2"]["pods"]) == (None, [])
    # The scrape target's own pod label (the exporter pod) is never taken for a workload.
    for node in gpu.values():
        assert {d["pod"] for d in node["devices"]} == {None}


async def test_the_exporters_attribution_wins_over_the_cluster(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    body = await snapshot(nufi, user, "acme")
    node = next(n for n in body["nodes"] if n["node"] == "mon-acme-1")
    devices = {d["device"]: (d["pod"], d["namespace"]) for d in node["devices"]}
    assert devices == {"d0": ("exporter-pod", "team"), "d1": (None, None)}
    assert node["workload"] == "default/cluster-pod"
    # Label values arrive exactly as exported, quotes, backslashes and all.
    assert devices_of(body)[HOSTILE_NODE, HOSTILE_DEVICE]["utilization_percent"] == 30.0
    assert body["summary"]["memory_used_bytes"] is None and body["summary"]["max_temperature_celsius"] is None


# -- the catalog, errors, auth -------------------------------------------------------------------------


async def test_a_type_registered_a_moment_ago_is_in_the_overview_and_has_a_snapshot(
    nufi: httpx.AsyncClient, user: dict[str, str], idp: IdentityProviderProcess
) -> None:
    # Each resource key belongs to one type; no node advertises this one, hence force.
    payload = lpu_type("lpu-fresh", "monitoring-lpu", "example.com/fresh")
    created = await nufi.post(
        "/api/v1/admin/devices", json=payload, params={"force": "true"}, headers=bearer(idp, "admin")
    )
    assert created.status_code == 201, created.text

    overview = await nufi.get("/api/v1/monitoring/overview", headers=user)
    assert overview.status_code == 200
    rows = {row["device_type"]: row for row in overview.json()["items"]}
    assert rows["lpu-fresh"]["summary"]["devices"] == 8
    assert rows["lpu-fresh"]["name"] == "HyperAccel LPU (lpu-fresh)"
    assert {"nvidia-gpu", "furiosa-rngd", "rebellions-atom", "lpu"} <= set(rows)
    assert rows["nvidia-gpu"]["summary"]["devices"] >= 4
    assert rows["nvidia-gpu"]["summary"]["power_watts"] >= 4 * 245.5
    assert rows["lpu"]["summary"]["power_watts"] is None
    fresh = await snapshot(nufi, user, "lpu-fresh")
    assert fresh["summary"]["devices"] == 8


async def test_a_rejected_expression_is_an_error_and_the_rest_still_shows(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    body = await snapshot(nufi, user, "broken")
    (error,) = body["errors"]
    assert (error["source"], error["metric"]) == ("prometheus", "temperature")
    assert error["query"] == "lpu_temperature_celsius + on (node) lpu_memory_used_bytes"
    assert EXECUTION_REFUSAL[scraped.prometheus.name][1] in error["message"]
    assert body["summary"]["devices"] == 8 and body["summary"]["max_temperature_celsius"] is None
    assert body["summary"]["avg_utilization_percent"] is not None


async def test_an_unknown_type_is_404_and_no_token_401(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    missing = await nufi.get("/api/v1/monitoring/no-such-type", headers=user)
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM
    anonymous = await nufi.get("/api/v1/monitoring/overview")
    assert anonymous.status_code == 401 and anonymous.headers["content-type"] == PROBLEM


# -- cost ----------------------------------------------------------------------------------------------


# One plain query per quantity (ATOM: health too), and one for the time of the newest sample.
QUERIES_PER_EVALUATION = {"nvidia-gpu": 6, "lpu": 5, "rebellions-atom": 7}


async def nufi_metric(nufi: httpx.AsyncClient, name: str) -> dict[str, float]:
    """One of NuFi's own monitoring metrics from its /metrics, by device type."""
    found: dict[str, float] = {}
    for line in (await nufi.get("/metrics")).text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line.rsplit(" ", 1)
            found[labels.split('device_type="', 1)[1].split('"', 1)[0]] = float(value)
    return found


async def quiet(nufi: httpx.AsyncClient) -> None:
    """Every refresher idle, so Prometheus hears only from what the test does next."""

    async def idle() -> bool:
        return not any((await nufi_metric(nufi, "nufi_monitoring_refreshing")).values())

    await until(idle, within=20)


@pytest.mark.parametrize(("type_id", "devices"), [("nvidia-gpu", 4), ("lpu", 8), ("rebellions-atom", 2)])
async def test_twenty_readers_share_one_evaluation_as_counted_by_the_metrics_engine(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World, type_id: str, devices: int
) -> None:
    await quiet(nufi)
    before = await scraped.prometheus.requests_served("/api/v1/query")
    evaluated = (await nufi_metric(nufi, "nufi_monitoring_evaluations_total")).get(type_id, 0.0)
    bodies = await asyncio.gather(*(snapshot(nufi, user, type_id) for _ in range(20)))
    evaluations = (await nufi_metric(nufi, "nufi_monitoring_evaluations_total"))[type_id] - evaluated
    assert all(len(devices_of(body, only_mine=True)) == devices for body in bodies)
    # Twenty readers at once: one evaluation (a second only if the refresher's next tick fell inside
    # the reads).
    assert 1 <= evaluations <= 2
    assert len({body["time"] for body in bodies}) <= evaluations
    # The refresher the reads woke evaluates each interval until it goes idle. Each evaluation costs one
    # plain query per quantity and one for how old the newest sample is, as the metrics engine itself
    # counted them (VictoriaMetrics renews its count once a second, so it is read once nothing runs).
    await quiet(nufi)
    after = await scraped.prometheus.requests_served("/api/v1/query")
    ticked = (await nufi_metric(nufi, "nufi_monitoring_evaluations_total"))[type_id] - evaluated
    assert after - before == QUERIES_PER_EVALUATION[type_id] * ticked


async def test_the_overview_costs_one_evaluation_of_each_enabled_type(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    types = (await nufi.get("/api/v1/devices", params={"enabled": "true"}, headers=user)).json()["items"]
    per_evaluation = {}
    for item in types:
        metrics = item["metrics"]
        queries = sum(1 for key in ("utilization", "temperature", "power", "health") if metrics.get(key))
        # And one for the time of the type's newest sample (each of these types reads a plain series).
        per_evaluation[item["id"]] = queries + (2 if metrics.get("memory") else 0) + 1
    await quiet(nufi)
    before = await scraped.prometheus.requests_served("/api/v1/query")
    evaluated = await nufi_metric(nufi, "nufi_monitoring_evaluations_total")

    async def evaluations() -> dict[str, float]:
        now = await nufi_metric(nufi, "nufi_monitoring_evaluations_total")
        return {type_id: now[type_id] - evaluated.get(type_id, 0.0) for type_id in per_evaluation}

    overview = (await nufi.get("/api/v1/monitoring/overview", headers=user)).json()
    woke = await evaluations()
    assert len(overview["items"]) == len(types) >= len(OFFICIAL_PRESETS) + 4
    assert all(1 <= count <= 2 for count in woke.values()), woke
    # Counted once every refresher the overview woke has gone idle again (see the test above).
    await quiet(nufi)
    after = await scraped.prometheus.requests_served("/api/v1/query")
    ticked = await evaluations()
    assert after - before == sum(per_evaluation[t] * ticked[t] for t in per_evaluation)
