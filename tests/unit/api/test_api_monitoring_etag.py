"""The pollers' conditional answers: the snapshot and the overview carry a strong ETag over their body's
bytes, and If-None-Match naming it is a 304 without a body, until the data changes."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import given
from hypothesis import strategies as st
from pydantic import SecretStr

from nufi.api import create_app
from nufi.api.auth import current_principal
from nufi.api.conditional import CACHE_CONTROL, entity_tag, none_match
from nufi.api.services import get_monitoring
from nufi.auth.principal import Principal
from nufi.config import Settings
from nufi.devices.official.nvidia import PRESET as NVIDIA
from nufi.errors import NotFound
from nufi.monitoring.contracts import PageRead
from nufi.monitoring.snapshots.overview import Overview, OverviewRow
from nufi.monitoring.snapshots.paging import PageQuery, page_snapshot
from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot, Summary
from support.asgi import serving
from support.etag import weak_tag
from support.nufi_app import MEMORY_DATABASE

NOW = 1_700_000_000.0
USER = Principal(subject="u-1", username="alice", roles=frozenset())
SNAPSHOT = "/api/v1/monitoring/nvidia-gpu"
OVERVIEW = "/api/v1/monitoring/overview"


def snapshot_at(utilization: float) -> Snapshot:
    nodes = (NodeEntry("gpu-1", 1, 1, 0, (), None, (DeviceEntry("0", utilization),)),)
    return Snapshot("nvidia-gpu", NOW, Summary.of(nodes), nodes, (), ())


class FakeMonitoring:
    """Answers whatever snapshot the test last set, as the service would."""

    def __init__(self) -> None:
        self.current = snapshot_at(40.0)

    async def snapshot(self, principal: Principal | None, device_type_id: str) -> Snapshot:
        if device_type_id != "nvidia-gpu":
            raise NotFound(code="device_type.not_found", params={"device_type": device_type_id})
        return self.current

    async def read_page(self, principal: Principal | None, device_type_id: str, query: PageQuery) -> PageRead:
        snapshot = await self.snapshot(principal, device_type_id)
        # The snapshot itself versions the page: a test that sets another sets a new version.
        return PageRead(page_snapshot(snapshot, query), id(snapshot), "all")

    async def overview(self, principal: Principal | None) -> Overview:
        return Overview((OverviewRow(NVIDIA, self.current),))


pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.fixture
def monitoring() -> FakeMonitoring:
    return FakeMonitoring()


@pytest.fixture
async def client(monitoring: FakeMonitoring) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(Settings(database_url=SecretStr(MEMORY_DATABASE)))
    app.dependency_overrides[current_principal] = lambda: USER
    app.dependency_overrides[get_monitoring] = lambda: monitoring
    async with serving(app) as client:
        yield client


@pytest.mark.parametrize("path", [SNAPSHOT, OVERVIEW])
async def test_same_data_is_304_changed_data_is_200_with_a_new_etag(
    client: httpx.AsyncClient, monitoring: FakeMonitoring, path: str
) -> None:
    first = await client.get(path)
    assert first.status_code == 200
    assert first.headers["content-type"] == "application/json"
    tag = first.headers["etag"]
    assert tag == weak_tag(first.content)
    assert first.headers["cache-control"] == CACHE_CONTROL

    unchanged = await client.get(path, headers={"If-None-Match": tag})
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    assert unchanged.headers["etag"] == tag
    assert "content-type" not in unchanged.headers

    monitoring.current = snapshot_at(90.0)
    changed = await client.get(path, headers={"If-None-Match": tag})
    assert changed.status_code == 200
    assert changed.json() != first.json()
    assert changed.headers["etag"] not in (tag, "")
    assert changed.headers["etag"] == weak_tag(changed.content)

    opaque = changed.headers["etag"].removeprefix("W/")
    again = await client.get(path, headers={"If-None-Match": f'"other", {opaque}'})
    assert again.status_code == 304


@pytest.mark.parametrize("path", [SNAPSHOT, OVERVIEW])
async def test_the_same_snapshot_read_later_still_matches(
    client: httpx.AsyncClient, monitoring: FakeMonitoring, path: str
) -> None:
    first = await client.get(path)
    monitoring.current = dataclasses.replace(monitoring.current, age_seconds=12.5)
    older = await client.get(path)
    assert older.json() != first.json()  # only the age differs...
    assert older.headers["etag"] == first.headers["etag"]  # ...so it is the same snapshot
    assert (await client.get(path, headers={"If-None-Match": first.headers["etag"]})).status_code == 304


async def test_the_body_is_the_one_without_a_condition(client: httpx.AsyncClient) -> None:
    plain = await client.get(SNAPSHOT)
    stale = await client.get(SNAPSHOT, headers={"If-None-Match": '"not-this-one"'})
    assert stale.status_code == 200
    assert stale.content == plain.content and stale.headers["etag"] == plain.headers["etag"]


async def test_a_problem_carries_no_etag(client: httpx.AsyncClient) -> None:
    missing = await client.get("/api/v1/monitoring/nope", headers={"If-None-Match": "*"})
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert "etag" not in missing.headers


async def test_the_document_declares_the_etag_and_the_304(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path in (SNAPSHOT.replace("nvidia-gpu", "{device_type_id}"), OVERVIEW):
        responses = paths[path]["get"]["responses"]
        assert responses["200"]["headers"]["ETag"]["required"] is True
        assert "application/json" in responses["200"]["content"]
        assert "content" not in responses["304"]
        assert "ETag" in responses["304"]["headers"]


def test_if_none_match_is_compared_weakly_as_rfc_9110_says() -> None:
    tag = '"abc"'
    assert none_match(["*"], tag)
    assert none_match(['"abc"'], tag)
    assert none_match(['W/"abc"'], tag)
    assert none_match(['"x", "abc"'], tag)
    assert none_match(['"x"', ' "abc" '], tag)
    assert not none_match([], tag)
    assert not none_match(['"abcd"', '"ab"', "abc", '"x", *'], tag)


@given(st.binary(max_size=256), st.binary(max_size=256))
def test_equal_bodies_and_only_they_share_a_tag(one: bytes, other: bytes) -> None:
    assert (entity_tag(one) == entity_tag(other)) == (one == other)
    assert none_match([entity_tag(one)], entity_tag(one))


async def test_answered_polls_are_logged_at_debug_and_failures_at_info(
    client: httpx.AsyncClient, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert (await client.get(SNAPSHOT)).status_code == 200
    assert (await client.get(OVERVIEW)).status_code == 200
    assert (await client.get("/api/v1/monitoring/unknown")).status_code == 404
    logged = [line for line in capsys.readouterr().out.splitlines() if " request " in line]
    # Dashboards poll both every few seconds per open page (DEBUG is off); the failure is worth a line.
    assert len(logged) == 1 and "path=/api/v1/monitoring/unknown" in logged[0] and "status=404" in logged[0]
