"""The ui area's own cluster: the wizard's nodes (`wizard_world.WIZARD_NODES`), which only read what
nodes offer (the workload pages use the run's `cluster`, the world's nodes, and leave it as they found
it); the wizard's dashboards: `live` over that cluster and the run's Prometheus, `offline` with
neither; and `person`, the workload pages' dashboard over the run's cluster (the page tests that need
no cluster declare a `person` of their own)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from nicegui.testing import User

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.dev_cluster import dev_cluster

from .wizard_world import WIZARD_NODES, dashboard, dashboard_env, node_layout
from .workload_pages_world import workload_dashboard


@pytest.fixture(scope="package")
def wizard_cluster() -> Iterator[DevClusterProcess]:
    """A dev cluster whose nodes offer `WIZARD_KEY` (on two of three) and nothing else."""
    with dev_cluster(node_layout(WIZARD_NODES), prefix="wiz-") as started:
        yield started


@pytest.fixture
async def offline(tmp_path: Path) -> AsyncIterator[User]:
    """The dashboard with neither a cluster nor Prometheus, its database a file under `tmp_path`."""
    async with dashboard(dashboard_env(tmp_path)) as user:
        yield user


@pytest.fixture
async def live(
    wizard_cluster: DevClusterProcess, prometheus: PrometheusServer, tmp_path: Path
) -> AsyncIterator[User]:
    """The dashboard over the wizard cluster and the run's Prometheus, its database under `tmp_path`."""
    env = dashboard_env(tmp_path, prometheus_url=prometheus.url, kubeconfig=wizard_cluster.kubeconfig)
    async with dashboard(env) as user:
        yield user


@pytest.fixture
async def person(cluster: DevClusterProcess, tmp_path: Path) -> AsyncIterator[User]:
    async with workload_dashboard(cluster, tmp_path) as user:
        yield user
