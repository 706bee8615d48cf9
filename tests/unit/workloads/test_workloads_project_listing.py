"""Who may see which names is asked by every monitoring read of a non-admin: the projects behind the
answer are listed at most once per couple of seconds, and once for all who ask together."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from nufi.auth import Principal
from nufi.cluster import ClusterGateway
from nufi.db import Database
from nufi.workloads.labels import MEMBERS_ANNOTATION, PROJECT
from nufi.workloads.projects import service as projects_module
from nufi.workloads.projects.service import ProjectService
from support.nufi_app import MEMORY_DATABASE

ALICE = Principal(subject="alice", username="alice", roles=frozenset())


def namespace(name: str, members: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {PROJECT: name}, "annotations": {MEMBERS_ANNOTATION: members}}
    }


async def test_readers_asking_together_share_one_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    listings = 0
    release = asyncio.Event()

    async def listed(cluster: ClusterGateway, *, label_selector: str) -> list[dict[str, Any]]:
        nonlocal listings
        listings += 1
        await release.wait()
        return [namespace("team-a", '["alice"]'), namespace("team-b", '["bob"]')]

    monkeypatch.setattr(projects_module, "list_namespaces", listed)
    engine = create_async_engine(MEMORY_DATABASE)
    service = ProjectService(ClusterGateway(None), Database(engine), workload_role="edit")
    asking = [asyncio.ensure_future(service.hidden_namespaces(ALICE)) for _ in range(50)]
    await asyncio.sleep(0)
    release.set()
    answers = await asyncio.gather(*asking)
    assert listings == 1
    assert all(answer == frozenset({"team-b"}) for answer in answers)
    # Within the listing's lifetime, nobody asks the cluster again.
    assert await service.hidden_namespaces(ALICE) == frozenset({"team-b"}) and listings == 1
    await engine.dispose()
