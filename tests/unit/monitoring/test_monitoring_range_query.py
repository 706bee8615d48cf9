"""A range's parameters are parsed in one place: the route hands the service one `RangeQuery`, and a
parameter at fault is refused there with the very problem the service's parser gives."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from nufi.api import create_app
from nufi.api.auth import current_principal
from nufi.api.problems import error_body
from nufi.api.services import get_monitoring
from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.config import Settings
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.errors import ValidationFailed
from nufi.monitoring.ranges.request import RangeQuery
from nufi.monitoring.ranges.result import RangeResult
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from support.asgi import serving
from support.nufi_app import MEMORY_DATABASE

from .test_monitoring_range_reads import ALICE, NOW, Clock, Prometheus, Types

RANGE = "/api/v1/monitoring/lpu/range"
READER = ClusterReader(ClusterGateway(None))

pytestmark = pytest.mark.usefixtures("clean_env")


class Recording(MonitoringService):
    """The real service, remembering each query the route handed it."""

    def __init__(self) -> None:
        settings = MonitoringSettings(scrape_interval_seconds=15)
        super().__init__(
            Types(),
            FetcherRegistry(builtin_fetchers()),
            READER,
            Prometheus(),
            settings,
            clock=Clock(),
            background=False,
        )
        self.asked: list[RangeQuery] = []

    async def history(
        self, principal: Principal | None, device_type_id: str, query: RangeQuery
    ) -> RangeResult:
        self.asked.append(query)
        return await super().history(principal, device_type_id, query)


@pytest.fixture
def monitoring() -> Recording:
    return Recording()


@pytest.fixture
async def client(monitoring: Recording) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(Settings(database_url=SecretStr(MEMORY_DATABASE)))
    app.dependency_overrides[current_principal] = lambda: ALICE
    app.dependency_overrides[get_monitoring] = lambda: monitoring
    async with serving(app) as client:
        yield client


async def test_the_route_hands_the_service_the_whole_query_as_asked(
    client: httpx.AsyncClient, monitoring: Recording
) -> None:
    asked = {
        "metric": "memory",
        "start": str(NOW - 7200),
        "end": str(NOW - 3600),
        "by": "node",
        "node": "n1",
        "device": "lpu0",
        "points": "50",
        "series": "1",
        "top": "peak",
    }
    response = await client.get(RANGE, params=asked)
    assert response.status_code == 200, response.text
    expected = RangeQuery(**(asked | {"points": 50, "series": 1}))  # type: ignore[arg-type]
    assert monitoring.asked == [expected]


@pytest.mark.parametrize(
    ("step", "start"),
    [
        ("0.0001", None),  # finer than a millisecond
        ("400d", None),  # coarser than a year
        ("1", str(NOW - 7 * 86400)),  # more points than Prometheus answers
        ("soon", None),  # no duration
        ("-5", None),
    ],
)
async def test_a_step_at_fault_is_the_same_problem_from_the_route_and_the_parser(
    client: httpx.AsyncClient, monitoring: Recording, step: str, start: str | None
) -> None:
    query = RangeQuery("utilization", start=start, end=str(NOW), step=step)
    with pytest.raises(ValidationFailed) as parsed:
        monitoring.ranges.parse(query)
    params = {"metric": "utilization", "end": str(NOW), "step": step} | ({"start": start} if start else {})
    response = await client.get(RANGE, params=params)
    assert response.status_code == 422
    body = response.json()
    assert body.pop("request_id", None) is not None
    assert body == {k: v for k, v in error_body(parsed.value).items() if k != "request_id"}
    assert body["field"] == "step"
    assert monitoring.asked == [query]
