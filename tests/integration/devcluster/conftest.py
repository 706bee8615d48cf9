"""Fixtures for the dev cluster's integration tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from simcluster import SimClusters


@pytest.fixture
async def clusters() -> AsyncIterator[SimClusters]:
    """In-process dev clusters (store + simulation) started by the test and stopped after it."""
    started = SimClusters()
    try:
        yield started
    finally:
        await started.stop_all()
