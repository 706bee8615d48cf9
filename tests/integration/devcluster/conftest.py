"""Fixtures for the dev cluster's integration tests: in-process clusters, gRPC kubelets, and the API of
a module's dev cluster process (`cluster`, which each module that runs one defines) with a namespace
of the test's own."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from kubernetes_asyncio import client

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.kube import api_client, new_namespace

from .grpc_kubelet import Kubelet
from .simcluster import SimClusters


@pytest.fixture
async def clusters() -> AsyncIterator[SimClusters]:
    """In-process dev clusters (store + simulation) started by the test and stopped after it."""
    started = SimClusters()
    try:
        yield started
    finally:
        await started.stop_all()


@pytest.fixture
async def make_kubelet(short_tmp: Path) -> AsyncIterator[Callable[..., Awaitable[Kubelet]]]:
    started: list[Kubelet] = []

    async def make(grace: float = 60.0) -> Kubelet:
        # short_tmp: pytest's tmp_path is too long for a unix socket path (108 bytes).
        kubelet = Kubelet(short_tmp / str(len(started)), grace)
        started.append(kubelet)
        await kubelet.manager.start()
        return kubelet

    yield make
    for kubelet in started:
        await kubelet.manager.stop()
        for plugin in kubelet.plugins:
            await plugin.stop()


@pytest.fixture
async def kubelet(make_kubelet: Callable[..., Awaitable[Kubelet]]) -> Kubelet:
    return await make_kubelet()


@pytest.fixture
async def api(cluster: DevClusterProcess) -> AsyncIterator[client.ApiClient]:
    """kubernetes-asyncio on the module's `cluster`."""
    async with api_client(cluster.kubeconfig) as api:
        yield api


@pytest.fixture
async def namespace(api: client.ApiClient) -> str:
    return await new_namespace(api, 6)
