"""Prometheus answering errors or answering late, between NuFi and a real Prometheus: a 503
`prometheus-unavailable` problem with Retry-After within the configured timeout — never a 500, never
a hung request — and answers again once Prometheus does, without restarting NuFi. (A stopped
Prometheus: tests/integration/monitoring/test_monitoring_unavailable.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from support.http_fault import Fault, HttpFault
from support.world import World, serve

TIMEOUT_SECONDS = 2.0
RANGE = "/api/v1/monitoring/nvidia-gpu/range"


def ranges(method: str, path: str) -> bool:
    return "/api/v1/query_range" in path


@pytest.fixture
async def faulty(world: World, tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, HttpFault]]:
    proxy = await HttpFault(world.prometheus.url).start()
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        update={
            "prometheus_url": proxy.url,
            "prometheus_timeout_seconds": TIMEOUT_SECONDS,
            "thermal_enabled": False,
        }
    )
    try:
        async with serve(settings) as nufi:
            assert (await history(nufi, world)).status_code == 200
            yield nufi, proxy
    finally:
        await proxy.close()


async def history(nufi: httpx.AsyncClient, world: World, metric: str = "utilization") -> httpx.Response:
    return await nufi.get(RANGE, params={"metric": metric}, headers=world.user)


# A chart the fixture's read did not ask: range answers are shared until the next step, so asking the
# same one again would be answered from before the fault.
FAULTED = "temperature"


def assert_prometheus_unavailable(response: httpx.Response) -> str:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == "5"
    body = response.json()
    assert body["type"] == "prometheus-unavailable" and body["dependency"] == "prometheus", body
    return str(body["detail"])


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_an_erroring_prometheus_is_a_503_and_nufi_answers_again_when_it_recovers(
    faulty: tuple[httpx.AsyncClient, HttpFault], world: World, status: int
) -> None:
    nufi, proxy = faulty
    proxy.set(Fault(status, matches=ranges))
    assert_prometheus_unavailable(await history(nufi, world, FAULTED))
    proxy.set(None)
    assert (await history(nufi, world, FAULTED)).status_code == 200


async def test_a_prometheus_slower_than_the_timeout_is_a_503_naming_it(
    faulty: tuple[httpx.AsyncClient, HttpFault], world: World
) -> None:
    nufi, proxy = faulty
    proxy.set(Fault(delay=TIMEOUT_SECONDS + 4, matches=ranges))
    detail = assert_prometheus_unavailable(await history(nufi, world, FAULTED))
    assert proxy.url in detail
    proxy.set(None)
    assert (await history(nufi, world, FAULTED)).status_code == 200
