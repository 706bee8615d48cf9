"""The monitoring world, and one NuFi app over it and the run's dev identity provider (`idp`), for the
whole package."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import ExitStack

import httpx
import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.prometheus_jobs import retire_jobs
from support.world import serve

from .monitoring_app import World, bearer, nufi_settings, register_custom_types
from .monitoring_world import (
    ACME_SERIES,
    EXPORTERS,
    RunningExporter,
    serving_fixed,
    start_cluster,
    start_exporter,
)


@pytest.fixture(scope="package")
async def world(
    tmp_path_factory: pytest.TempPathFactory, prometheus: PrometheusServer
) -> AsyncIterator[World]:
    # Jobs handed over by an earlier module are marked stale first, and ours are when we are done.
    await retire_jobs(prometheus)
    work = tmp_path_factory.mktemp("monitoring")
    with ExitStack() as stack:
        cluster = start_cluster(work)
        stack.callback(cluster.stop)
        exporters: dict[str, RunningExporter] = {}
        for spec in EXPORTERS:
            running = start_exporter(spec, work / "logs")
            stack.callback(running.process.stop)
            exporters[spec.job] = running
        acme = stack.enter_context(serving_fixed("acme_util", ACME_SERIES))
        jobs = [ScrapeJob(job, [e.address], labels=e.spec.target_labels) for job, e in exporters.items()]
        prometheus.set_jobs([*jobs, ScrapeJob("monitoring-acme", [acme])])
        try:
            yield World(prometheus, cluster, exporters)
        finally:
            await retire_jobs(prometheus)


@pytest.fixture(scope="package")
async def scraped(world: World) -> World:
    """Every target scraped, pinned values included."""
    for spec in EXPORTERS:
        await world.prometheus.wait_for_series(f'up{{job="{spec.job}"}} == 1', timeout=30)
    await world.prometheus.wait_for_series('up{job="monitoring-acme"} == 1', timeout=30)
    await world.prometheus.wait_for_series('DCGM_FI_DEV_FB_USED{Hostname="mon-gpu-2"} == 30000', timeout=30)
    return world


@pytest.fixture(scope="package")
async def nufi(scraped: World, idp: IdentityProviderProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(nufi_settings(idp, scraped.prometheus.url, scraped.cluster.kubeconfig)) as client:
        await register_custom_types(client, idp)
        yield client


@pytest.fixture
def user(idp: IdentityProviderProcess) -> dict[str, str]:
    return bearer(idp, "user")
