"""Monitoring as a dashboard uses it over HTTP: server-side paging and sorting, a type edited a moment
ago served with its new expressions, and the Server-Sent Events stream, served by uvicorn on loopback."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from nufi.api import create_app
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.polling import until
from support.world import running

from .monitoring_app import World, bearer, lpu_type, nufi_settings

PROBLEM = "application/problem+json"


async def get(nufi: httpx.AsyncClient, user: dict[str, str], **params: str) -> dict[str, Any]:
    response = await nufi.get("/api/v1/monitoring/lpu", params=params, headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_pages_follow_the_sort_and_together_hold_every_device_once(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    whole = await get(nufi, user)
    every = sorted((n["node"], d["device"]) for n in whole["nodes"] for d in n["devices"])
    first = await get(nufi, user, limit="1", sort="temperature")
    assert [n["node"] for n in first["nodes"]] == ["mon-lpu-1"]  # 61.25 °C, hotter than mon-lpu-2
    assert first["matched_nodes"] == len(whole["nodes"]) and first["continue"]
    # The summary covers the whole type on every page.
    assert first["summary"] == whole["summary"]
    seen = [(n["node"], d["device"]) for n in first["nodes"] for d in n["devices"]]
    token = first["continue"]
    while token:
        page = await get(nufi, user, limit="1", sort="temperature", **{"continue": token})
        assert page["time"] == first["time"]  # every page is cut from the first page's snapshot
        seen += [(n["node"], d["device"]) for n in page["nodes"] for d in n["devices"]]
        token = page["continue"]
    assert sorted(seen) == every and len(seen) == len(set(seen))

    filtered = await get(nufi, user, node="LPU-2")
    assert [n["node"] for n in filtered["nodes"]] == ["mon-lpu-2"] and filtered["matched_nodes"] == 1


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"sort": "colour"}, "sort"),
        ({"order": "up"}, "order"),
        ({"continue": "%%"}, "continue"),
    ],
)
async def test_bad_paging_parameters_are_422_naming_the_parameter(
    nufi: httpx.AsyncClient, user: dict[str, str], params: dict[str, str], field: str
) -> None:
    response = await nufi.get("/api/v1/monitoring/lpu", params=params, headers=user)
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM
    assert response.json()["field"] == field


async def test_a_token_used_with_another_sort_is_refused(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    token = (await get(nufi, user, limit="1"))["continue"]
    response = await nufi.get(
        "/api/v1/monitoring/lpu",
        params={"limit": "1", "sort": "utilization", "continue": token},
        headers=user,
    )
    assert response.status_code == 422 and response.json()["field"] == "continue"


async def test_a_type_edited_a_moment_ago_is_served_with_its_new_expressions(
    nufi: httpx.AsyncClient, user: dict[str, str], idp: IdentityProviderProcess
) -> None:
    admin = bearer(idp, "admin")
    spec = lpu_type("edited-lpu", "monitoring-lpu", "example.com/edited")
    created = await nufi.post("/api/v1/admin/devices", json=spec, params={"force": "true"}, headers=admin)
    assert created.status_code == 201, created.text
    before = (await nufi.get("/api/v1/monitoring/edited-lpu", headers=user)).json()
    assert {d["temperature_celsius"] for n in before["nodes"] for d in n["devices"]} == {61.25, 45.5}
    spec["metrics"]["temperature"] = 'lpu_temperature_celsius{job="monitoring-lpu"} + 10'
    edited = await nufi.put(
        "/api/v1/admin/devices/edited-lpu",
        json={**{k: v for k, v in spec.items() if k != "id"}, "revision": created.json()["revision"]},
        params={"force": "true"},
        headers=admin,
    )
    assert edited.status_code == 200, edited.text
    # The very next read, without waiting for any refresh interval.
    after = (await nufi.get("/api/v1/monitoring/edited-lpu", headers=user)).json()
    assert {d["temperature_celsius"] for n in after["nodes"] for d in n["devices"]} == {71.25, 55.5}
    deleted = await nufi.delete("/api/v1/admin/devices/edited-lpu", headers=admin)
    assert deleted.status_code == 204
    assert (await nufi.get("/api/v1/monitoring/edited-lpu", headers=user)).status_code == 404


# -- the stream ------------------------------------------------------------------------------------


async def events(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    """(event, data) of each Server-Sent Event; a heartbeat comment as ("heartbeat", "")."""
    event, data = "", ""
    async for line in response.aiter_lines():
        if line.startswith(": "):
            yield "heartbeat", ""
        elif line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif line == "" and event:
            yield event, data
            event, data = "", ""


async def streams_open(client: httpx.AsyncClient) -> float:
    total = 0.0
    for line in (await client.get("/metrics")).text.splitlines():
        if line.startswith("nufi_monitoring_streams{"):
            total += float(line.rsplit(" ", 1)[1])
    return total


async def test_the_stream_sends_a_snapshot_per_evaluation_and_lets_go_when_the_client_leaves(
    scraped: World, idp: IdentityProviderProcess
) -> None:
    settings = nufi_settings(idp, scraped.prometheus.url, scraped.cluster.kubeconfig).model_copy(
        update={"monitoring_stream_heartbeat_seconds": 0.3}
    )
    user = bearer(idp, "user")
    async with running(create_app(settings)) as url, httpx.AsyncClient(base_url=url, timeout=30.0) as client:
        snapshots: list[dict[str, Any]] = []
        heartbeats = 0
        async with client.stream(
            "GET", "/api/v1/monitoring/nvidia-gpu/stream", params={"limit": "1"}, headers=user
        ) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            assert await streams_open(client) == 1
            async for event, data in events(response):
                if event == "heartbeat":
                    heartbeats += 1
                    continue
                assert event == "snapshot", data
                snapshots.append(json.loads(data))
                if len(snapshots) == 3:
                    break
        times = [s["time"] for s in snapshots]
        assert times == sorted(times) and len(set(times)) == 3  # one event per new evaluation
        assert all(len(s["nodes"]) == 1 and s["matched_nodes"] >= 2 for s in snapshots)  # the page asked for
        assert heartbeats >= 1  # 0.3 s heartbeats between evaluations one second apart

        # The client went away: the server's stream ends and nothing keeps evaluating for it.
        async def closed() -> bool:
            return await streams_open(client) == 0

        await until(closed, within=10)

        async def idle() -> bool:
            text = (await client.get("/metrics")).text
            return 'nufi_monitoring_refreshing{device_type="nvidia-gpu"} 0.0' in text

        await until(idle, within=15)


async def test_a_stream_of_an_unknown_type_is_404(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    response = await nufi.get("/api/v1/monitoring/no-such-type/stream", headers=user)
    assert response.status_code == 404 and response.headers["content-type"] == PROBLEM


async def test_a_stream_needs_a_token(nufi: httpx.AsyncClient) -> None:
    response = await nufi.get("/api/v1/monitoring/lpu/stream")
    assert response.status_code == 401 and response.headers["content-type"] == PROBLEM
