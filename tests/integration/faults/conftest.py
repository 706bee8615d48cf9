"""Faults of the systems NuFi relies on, each met for real: the dev cluster, the dev identity provider,
a real Prometheus and a real PostgreSQL, with NuFi served in memory."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer

from ..workloads.workloads_world import NODES, World


@pytest.fixture(scope="package")
def cluster() -> Iterator[DevClusterProcess]:
    state = Path(tempfile.mkdtemp(prefix="ft-", dir="/tmp"))
    (state / "nodes.yaml").write_text(NODES)
    process = DevClusterProcess(state, nodes_file=state / "nodes.yaml")
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="package")
def idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdentityProviderProcess]:
    process = IdentityProviderProcess(tmp_path_factory.mktemp("idp"))
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="package")
def world(cluster: DevClusterProcess, idp: IdentityProviderProcess, prometheus: PrometheusServer) -> World:
    return World(
        cluster, idp, prometheus, idp.password_token("admin", "admin"), idp.password_token("user", "user")
    )
