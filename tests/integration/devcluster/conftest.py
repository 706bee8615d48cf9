"""Fixtures for the dev cluster's integration tests: in-process clusters, and gRPC kubelets."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

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
