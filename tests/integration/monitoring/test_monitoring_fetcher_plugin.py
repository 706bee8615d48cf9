"""A third-party fetcher, installed as a distribution with a `nufi.device_fetchers` entry point, is served
by every route that reads device data exactly as it computes it: the catalog's inventory, snapshots,
the overview, time ranges and the wizard's metric check.

The plugin differs from the generic fetcher on purpose, so a route that bypassed it would show: each
Acme card is advertised to Kubernetes as two resource units (one per die), so its inventory counts
half the resource; and its exporter reports -1 for a die it could not read, which is no reading.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import ScrapeJob
from support.plugins import installed_distribution
from support.polling import until
from support.world import serve

from .monitoring_app import World, bearer, nufi_settings
from .monitoring_world import NODES, serving_fixed

PLUGIN_SOURCE = """
import math

from nufi.devices.capacity import Inventory, NodeInventory
from nufi.devices.readings import DeviceReading, Readings

UNITS_PER_CARD = 2
NOT_READ = -1.0


class AcmeFetcher:
    def labels_read(self, device_type):
        return (device_type.labels.node, device_type.labels.device)

    def usable(self, metric, value):
        return math.isfinite(value) and value != NOT_READ

    def inventory(self, device_type, cluster):
        key = device_type.resource_key
        rows = []
        for node in cluster.nodes:
            capacity = node.capacity_of(key)
            if capacity is None:
                continue
            held = sum(p.extended_requests.get(key, 0) for p in cluster.pods if p.node == node.name)
            allocatable = node.allocatable_of(key) or 0
            counts = (capacity, allocatable, held)
            rows.append(NodeInventory(node.name, *(count // UNITS_PER_CARD for count in counts)))
        return Inventory(key, tuple(rows))

    async def readings(self, device_type, prometheus, *, at=None):
        result = await prometheus.query(device_type.metrics.utilization, at)
        labels = device_type.labels
        devices = []
        for sample in result.samples:
            node, card = sample.metric.get(labels.node), sample.metric.get(labels.device)
            if node is None or card is None:
                continue
            read = self.usable("utilization", sample.value)
            devices.append(
                DeviceReading(
                    node,
                    card,
                    utilization_percent=sample.value if read else None,
                    sampled_at={"utilization": sample.timestamp} if read else {},
                )
            )
        devices.sort(key=lambda d: (d.node, d.device))
        return Readings(devices=tuple(devices), queried_at=at or 0.0)
"""

TYPE_ID = "acme-plugin"
NODE = "mon-acme-1"  # advertises example.com/acc: 2, all held by one pod (see monitoring_world)
PLUGIN_TYPE: dict[str, Any] = {
    "id": TYPE_ID,
    "name": "Acme accelerator (vendor fetcher)",
    "vendor": "Acme",
    "resource_key": "example.com/acc",
    "labels": {"node": "host", "device": "card"},
    "metrics": {"utilization": "acme_card_util"},
    "fetcher": "acme-npu",
}
SERIES = [({"host": NODE, "card": "c0"}, 42.0), ({"host": NODE, "card": "c1"}, -1.0)]


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with installed_distribution(
        tmp_path_factory.mktemp("plugin"),
        "acme-nufi-fetcher",
        {"acme_nufi_fetcher": PLUGIN_SOURCE},
        {"acme-npu": "acme_nufi_fetcher:AcmeFetcher"},
    ) as root:
        yield root


@pytest.fixture(scope="module")
async def card_series(scraped: World) -> AsyncIterator[None]:
    prometheus = scraped.prometheus
    before = list(prometheus.jobs)
    with serving_fixed("acme_card_util", SERIES) as address:
        prometheus.set_jobs([*before, ScrapeJob("monitoring-acme-cards", [address])])
        try:
            await prometheus.wait_for_series('acme_card_util{card="c1"}', timeout=30)
            yield
        finally:
            prometheus.set_jobs(before)


@pytest.fixture(scope="module")
async def nufi_with_plugin(
    plugin: Path, card_series: None, scraped: World, idp: IdentityProviderProcess
) -> AsyncIterator[httpx.AsyncClient]:
    async with AsyncExitStack() as stack:
        settings = nufi_settings(idp, scraped.prometheus.url, scraped.cluster.kubeconfig)
        client = await stack.enter_async_context(serve(settings))
        created = await client.post("/api/v1/admin/devices", json=PLUGIN_TYPE, headers=bearer(idp, "admin"))
        assert created.status_code == 201, created.text
        yield client


async def get(client: httpx.AsyncClient, path: str, headers: dict[str, str], **params: Any) -> Any:
    response = await client.get(path, headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_the_catalog_shows_the_plugins_inventory(
    nufi_with_plugin: httpx.AsyncClient, user: dict[str, str]
) -> None:
    one = await get(nufi_with_plugin, f"/api/v1/devices/{TYPE_ID}", user)
    assert one["fetcher"] == "acme-npu"
    assert one["inventory"]["per_node"] == [{"node": NODE, "capacity": 1, "allocatable": 1, "allocated": 1}]
    listed = {row["id"]: row for row in (await get(nufi_with_plugin, "/api/v1/devices", user))["items"]}
    assert listed[TYPE_ID]["inventory"] == {"nodes": 1, "capacity": 1, "allocatable": 1, "allocated": 1}
    # The node advertises two units: the generic fetcher would count 2.
    assert NODES[NODE]["example.com/acc"] == 2


async def test_snapshot_and_overview_use_the_plugins_inventory_and_readings(
    nufi_with_plugin: httpx.AsyncClient, user: dict[str, str]
) -> None:
    snapshot = await get(nufi_with_plugin, f"/api/v1/monitoring/{TYPE_ID}", user)
    (node,) = snapshot["nodes"]
    assert (node["node"], node["capacity"], node["allocatable"], node["allocated"]) == (NODE, 1, 1, 1)
    cards = {d["device"]: d["utilization_percent"] for d in node["devices"]}
    assert cards == {"c0": 42.0, "c1": None}
    assert snapshot["summary"]["avg_utilization_percent"] == 42.0

    overview = await get(nufi_with_plugin, "/api/v1/monitoring/overview", user)
    (row,) = [r for r in overview["items"] if r["device_type"] == TYPE_ID]
    assert row["summary"] == snapshot["summary"] and row["errors"] == []


async def test_time_ranges_drop_what_the_plugin_does_not_count_as_a_reading(
    nufi_with_plugin: httpx.AsyncClient, user: dict[str, str]
) -> None:
    async def ranged() -> dict[str, list[float]] | None:
        # Each ask a moment later is a window of its own once the step has passed, so a window asked
        # before the first scrape landed (and shared until its step ends) does not hide the data.
        body = await get(
            nufi_with_plugin,
            f"/api/v1/monitoring/{TYPE_ID}/range",
            user,
            metric="utilization",
            start=str(time.time() - 20),
        )
        by_card = {s["device"]: [v for _, v in s["values"]] for s in body["series"]}
        return by_card if by_card.get("c0") else None

    by_card = await until(ranged, within=20, every=0.5, what="c0's readings in a time range")
    assert set(by_card["c0"]) == {42.0}
    assert not by_card.get("c1"), by_card


async def test_the_metric_check_judges_values_with_the_chosen_fetcher(
    nufi_with_plugin: httpx.AsyncClient, idp: IdentityProviderProcess
) -> None:
    admin = bearer(idp, "admin")
    draft = {"labels": PLUGIN_TYPE["labels"], "metrics": PLUGIN_TYPE["metrics"]}

    async def check(**extra: Any) -> httpx.Response:
        return await nufi_with_plugin.post(
            "/api/v1/admin/devices/check-metrics", json={**draft, **extra}, headers=admin
        )

    with_plugin = (await check(fetcher="acme-npu")).json()["results"]["utilization"]
    assert {p["device"]: p["value"] for p in with_plugin["sample"]} == {"c0": 42.0, "c1": None}
    assert any("not measurements" in w for w in with_plugin["warnings"])
    assert not any("implausible" in w for w in with_plugin["warnings"])

    generic = (await check()).json()["results"]["utilization"]
    assert {p["device"]: p["value"] for p in generic["sample"]} == {"c0": 42.0, "c1": -1.0}
    assert any("implausible" in w for w in generic["warnings"])

    unknown = await check(fetcher="no-such-fetcher")
    assert unknown.status_code == 422 and unknown.json()["field"] == "fetcher"
