"""The workloads area's fixtures: the workload pages' world, built once per test process for every
module that asks for it (`workload_pages_support`); a module with a `world` of its own (the sandbox
tests) keeps its own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .workload_pages_support import World, workload_pages_world


@pytest.fixture(scope="package")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    async with workload_pages_world(tmp_path_factory) as built:
        yield built
