"""2./3. Warm reads in process: `service.snapshot(...)` of a running service, with 1 and with many
readers."""

from __future__ import annotations

import httpx

from bench.common.timing import until_serving
from bench.monitoring_snapshot.phases import phase
from bench.monitoring_snapshot.world import MANY_READERS, PRINCIPAL, TYPE_ID, World
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.cluster.cache import ClusterCache
from nufi.db import Database
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.prom import PrometheusGateway


async def warm_in_process(world: World, database: Database, prometheus: httpx.AsyncClient) -> None:
    settings = world.settings
    gateway = PrometheusGateway.from_settings(settings)
    cluster = ClusterGateway.from_settings(settings, environ={})
    cache = ClusterCache(cluster)
    cache.start()
    reader = ClusterReader(cluster, cache)
    fetchers = FetcherRegistry.with_plugins()
    catalog = DeviceCatalog(database, reader, gateway, fetchers)
    service = MonitoringService(
        catalog, fetchers, reader, gateway, MonitoringSettings.from_settings(settings)
    )

    async def read() -> bool:
        await service.snapshot(PRINCIPAL, TYPE_ID)
        return True

    async def evaluations() -> tuple[float, float]:
        stats = [entry.stats for entry in service.stats()]
        return float(sum(s.evaluations for s in stats)), sum(s.evaluation_seconds for s in stats)

    async def latest() -> float:
        return (await service.snapshot(PRINCIPAL, TYPE_ID)).time

    print(f"\n2./3. warm reads in process (service.snapshot), {world.warm_seconds:g} s per phase")
    try:
        await until_serving(cache)
        await read()
        for readers in (1, MANY_READERS):
            name = f"in process, {readers:>3} reader{'s' if readers > 1 else ''}"
            await phase(
                name,
                readers,
                world.warm_seconds,
                read,
                prometheus,
                evaluations,
                latest,
                world.refresh_seconds,
            )
    finally:
        # Closed before the next phase: its refresher must not query Prometheus during it.
        await service.close()
        await cache.close()
        await cluster.close()
        await gateway.close()
