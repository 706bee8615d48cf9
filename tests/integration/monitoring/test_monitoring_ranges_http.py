"""Time ranges over HTTP against the real Prometheus: per device and per node, filters with hostile label
values, parameter errors naming the parameter, and one query_range per series family, shared by every
reader of the same window (counted by Prometheus itself)."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from typing import Any

import httpx
import pytest

from support.polling import until

from .monitoring_app import World
from .monitoring_world import (
    ACME_SERIES,
    HOSTILE_DEVICE,
    HOSTILE_NODE,
    GiB,
    MiB,
    mine,
)

PROBLEM = "application/problem+json"
FIXED_NODES = {labels["host"] for labels, _ in ACME_SERIES}
QUERY_RANGE = "/api/v1/query_range"


async def history(
    nufi: httpx.AsyncClient, user: dict[str, str], type_id: str, **params: Any
) -> dict[str, Any]:
    params.setdefault("start", str(time.time() - 20))
    response = await nufi.get(f"/api/v1/monitoring/{type_id}/range", params=params, headers=user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["errors"] == []
    return body


def last_values(body: dict[str, Any], field: str = "values") -> dict[tuple[str, str | None], Any]:
    """The last point of each series of this module's nodes (other modules' series may linger)."""
    return {
        (s["node"], s["device"]): s[field][-1][1]
        for s in body["series"]
        if s[field] and (mine(s["node"]) or s["node"] in FIXED_NODES)
    }


async def two_points_each(nufi: httpx.AsyncClient, user: dict[str, str], **params: Any) -> dict[str, Any]:
    """A range of the lpu type once its series have two points: a window ends on the last whole step,
    which may hold only the first sample of a world scraped a moment ago."""
    deadline = time.monotonic() + 15
    while True:
        body = await history(nufi, user, "lpu", **params)
        ours = [s for s in body["series"] if mine(s["node"])]
        if (ours and all(len(s["values"]) >= 2 for s in ours)) or time.monotonic() > deadline:
            return body
        await asyncio.sleep(0.2)


async def test_utilization_per_device(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    body = await two_points_each(nufi, user, metric="utilization")
    assert (body["metric"], body["unit"], body["by"], body["reported"]) == (
        "utilization",
        "percent",
        "device",
        True,
    )
    found = last_values(body)
    assert len(found) == 8
    assert (
        found["mon-lpu-1", "lpu2"] == 90.0
        and found["mon-lpu-1", "lpu0"] == 40.0
        and found["mon-lpu-2", "lpu3"] == 20.0
    )
    for series in body["series"]:
        times = [t for t, _ in series["values"]]
        assert times == sorted(times) and len(times) >= 2
        assert all(b - a == pytest.approx(body["step_seconds"]) for a, b in itertools.pairwise(times))


async def test_memory_used_and_free_in_mib_per_device_and_per_node(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    per_device = await history(nufi, user, "nvidia-gpu", metric="memory")
    assert per_device["unit"] == "bytes"
    assert last_values(per_device, "used") == {
        (n, d): 30000 * MiB for n in ("mon-gpu-1", "mon-gpu-2") for d in ("0", "1")
    }
    assert set(last_values(per_device, "total").values()) == {81920 * MiB}
    per_node = await history(nufi, user, "nvidia-gpu", metric="memory", by="node")
    assert last_values(per_node, "used") == {
        ("mon-gpu-1", None): 60000 * MiB,
        ("mon-gpu-2", None): 60000 * MiB,
    }
    assert last_values(per_node, "total") == {
        ("mon-gpu-1", None): 2 * 81920 * MiB,
        ("mon-gpu-2", None): 2 * 81920 * MiB,
    }


async def test_per_node_averages_utilization_and_temperature_and_sums_memory(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    utilization = await history(nufi, user, "lpu", metric="utilization", by="node")
    assert last_values(utilization) == {("mon-lpu-1", None): (3 * 40.0 + 90.0) / 4, ("mon-lpu-2", None): 20.0}
    temperature = await history(nufi, user, "lpu", metric="temperature", by="node")
    assert last_values(temperature) == {("mon-lpu-1", None): 61.25, ("mon-lpu-2", None): 45.5}
    memory = await history(nufi, user, "lpu", metric="memory", by="node", node="mon-lpu-1")
    assert last_values(memory, "used") == {("mon-lpu-1", None): 4 * 3 * GiB}
    power = await history(nufi, user, "rebellions-atom", metric="power", by="node")
    assert last_values(power) == {("mon-atom-1", None): 2 * 70.5}


async def test_hostile_label_values_filter_exactly(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    by_node = await history(nufi, user, "acme", metric="utilization", node=HOSTILE_NODE)
    assert last_values(by_node) == {(HOSTILE_NODE, HOSTILE_DEVICE): 30.0, (HOSTILE_NODE, "x"): 31.0}
    both = await history(nufi, user, "acme", metric="utilization", node=HOSTILE_NODE, device=HOSTILE_DEVICE)
    assert last_values(both) == {(HOSTILE_NODE, HOSTILE_DEVICE): 30.0}
    by_device = await history(nufi, user, "acme", metric="utilization", device=HOSTILE_DEVICE)
    assert sorted(last_values(by_device).values()) == [30.0, 40.0, 41.0, 42.0]
    averaged = await history(nufi, user, "acme", metric="utilization", node=HOSTILE_NODE, by="node")
    assert last_values(averaged) == {(HOSTILE_NODE, None): 30.5}
    assert (both["node"], both["device"]) == (HOSTILE_NODE, HOSTILE_DEVICE)


async def test_a_metric_the_type_does_not_report_asks_nothing(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    before = await scraped.prometheus.requests_served(QUERY_RANGE)
    body = await history(nufi, user, "lpu", metric="power")
    after = await scraped.prometheus.requests_served(QUERY_RANGE)
    assert (body["reported"], body["series"], body["unit"]) == (False, [], "watts")
    assert after == before


@pytest.mark.parametrize(
    ("type_id", "metric", "by", "families"),
    [
        ("lpu", "utilization", "device", 1),
        ("nvidia-gpu", "memory", "device", 2),
        ("lpu", "memory", "node", 2),
    ],
)
async def test_one_query_range_per_series_family(
    nufi: httpx.AsyncClient,
    user: dict[str, str],
    scraped: World,
    type_id: str,
    metric: str,
    by: str,
    families: int,
) -> None:
    # A span no other test asks, so that no window of theirs is shared with this one.
    end = time.time()
    before = await scraped.prometheus.requests_served(QUERY_RANGE)
    body = await history(nufi, user, type_id, metric=metric, by=by, start=str(end - 23.7), end=str(end))
    after = await scraped.prometheus.requests_served(QUERY_RANGE)
    assert len(body["series"]) >= 2
    assert after - before == families


async def test_fifty_concurrent_chart_reads_of_a_type_ask_prometheus_once_per_family(
    nufi: httpx.AsyncClient, user: dict[str, str], scraped: World
) -> None:
    # What the dashboard's chart asks (memory has two families), over a window no other test asks:
    # one ending at the next minute, so that its answer is kept a whole step from when it lands and
    # the reads that come after it are served from it, however slowly they come.
    end = (math.floor(time.time() / 60) + 1) * 60
    asked = {"metric": "memory", "by": "node", "series": 20, "step": "60", "start": str(end - 660)}
    before = await scraped.prometheus.requests_served(QUERY_RANGE)
    bodies = await asyncio.gather(*(history(nufi, user, "lpu", **asked, end=str(end)) for _ in range(50)))
    after = await scraped.prometheus.requests_served(QUERY_RANGE)
    assert after - before == 2
    assert all(body == bodies[0] for body in bodies)
    assert len(bodies[0]["series"]) >= 2


async def test_a_series_limit_keeps_the_busiest_nodes_and_every_point_of_theirs(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    window = {"start": str(time.time() - 20), "end": str(time.time())}
    every = await history(nufi, user, "lpu", metric="utilization", by="node", **window)
    top = await history(nufi, user, "lpu", metric="utilization", by="node", series=1, **window)
    latest = {s["node"]: s["values"][-1][1] for s in every["series"] if s["values"]}
    assert len(top["series"]) == 1
    (kept,) = top["series"]
    assert latest[kept["node"]] == max(latest.values())
    assert kept == next(s for s in every["series"] if s["node"] == kept["node"])


async def test_without_a_step_a_day_has_at_most_500_points(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    # A day and a bit ending on the next multiple of the step, so that the window's end (aligned down
    # to its step) is not before the data, which is minutes old. Prometheus answers for that future
    # end from the newest samples; VictoriaMetrics answers only up to now, so with it the data must be
    # older than the last multiple of the step first (at most one step, 174 s).
    async def a_day() -> dict[str, Any] | None:
        end = (math.floor(time.time() / 174) + 1) * 174
        body = await history(
            nufi, user, "lpu", metric="temperature", start=str(end - 499 * 174), end=str(end)
        )
        return body if body["series"] else None

    body = await until(a_day, within=200, every=2, what="a day's chart with the LPU's series")
    assert body["step_seconds"] == 174.0
    assert all(len(s["values"]) <= 500 for s in body["series"])


async def test_rfc3339_times_and_an_explicit_step(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    # An end on the step (windows are aligned down to their step), so it comes back as asked.
    at = math.floor(time.time() / 2) * 2
    end = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at - 10))
    body = await history(nufi, user, "lpu", metric="temperature", start=start, end=end, step="2s")
    assert body["step_seconds"] == 2.0 and body["end"] == end.replace("Z", ".000Z")
    assert all(len(s["values"]) <= 6 for s in body["series"])


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"metric": "voltage"}, "metric"),
        ({"metric": "utilization", "by": "pod"}, "by"),
        ({"metric": "utilization", "start": "1700000100", "end": "1700000000"}, "start"),
        ({"metric": "utilization", "end": "tomorrow"}, "end"),
        ({"metric": "utilization", "step": "0s"}, "step"),
        ({"metric": "utilization", "node": ""}, "node"),
        ({}, "metric"),
    ],
)
async def test_bad_parameters_are_422_naming_the_parameter(
    nufi: httpx.AsyncClient, user: dict[str, str], params: dict[str, str], field: str
) -> None:
    response = await nufi.get("/api/v1/monitoring/lpu/range", params=params, headers=user)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["field"] == field


async def test_a_range_past_its_bounds_is_422_with_the_limit(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    end = 1_700_000_000.0
    too_long = await nufi.get(
        "/api/v1/monitoring/lpu/range",
        params={"metric": "utilization", "start": str(end - 32 * 86400), "end": str(end)},
        headers=user,
    )
    assert too_long.status_code == 422, too_long.text
    assert too_long.headers["content-type"] == PROBLEM
    problem = too_long.json()
    assert (problem["field"], problem["limit"], problem["max_range_seconds"]) == (
        "start",
        end - 31 * 86400,
        31 * 86400,
    )
    assert "2023-10-14T22:13:20.000Z" in problem["detail"]
    too_fine = await nufi.get(
        "/api/v1/monitoring/lpu/range",
        params={"metric": "utilization", "start": str(end - 31 * 86400), "end": str(end), "step": "15s"},
        headers=user,
    )
    assert too_fine.status_code == 422, too_fine.text
    assert (too_fine.json()["field"], too_fine.json()["limit"]) == ("step", 244)
    assert "at least 244 s" in too_fine.json()["detail"]


async def test_a_range_refused_is_told_in_korean_with_its_code_and_params(
    nufi: httpx.AsyncClient, user: dict[str, str]
) -> None:
    end = 1_700_000_000.0
    refused = await nufi.get(
        "/api/v1/monitoring/lpu/range",
        params={"metric": "utilization", "start": str(end - 32 * 86400), "end": str(end)},
        headers={**user, "Accept-Language": "ko"},
    )
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["title"] == "입력 검증 실패"
    assert problem["code"] == "monitoring.range_too_long"
    assert problem["params"]["span"] == {"code": "monitoring.span.days", "params": {"count": 32.0}}
    assert problem["params"]["earliest"] == "2023-10-14T22:13:20.000Z"
    assert problem["detail"] == (
        "start부터 end까지 32일로, 허용된 31일(NUFI_MONITORING_MAX_RANGE_SECONDS)보다 깁니다. "
        "start를 2023-10-14T22:13:20.000Z(1697321600) 이후로 하거나 end를 옮기세요"
    )
