"""Quotas shown on pages are read once a moment per namespace, shared by every page meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from nufi.cluster.kube_rest import Json
from nufi.workloads.quotas.recent import RecentQuotas


class _Reads:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.gate = asyncio.Event()

    async def __call__(self, namespace: str) -> list[Json]:
        self.calls.append(namespace)
        await self.gate.wait()
        return [{"metadata": {"name": f"q-{namespace}-{len(self.calls)}"}}]


async def test_pages_at_once_share_one_read_and_a_moment_later_read_again() -> None:
    now = [100.0]
    reads = _Reads()
    recent = RecentQuotas(reads, keep_seconds=2.0, clock=lambda: now[0])
    waiting = [asyncio.ensure_future(recent.of("team-a")) for _ in range(20)]
    await asyncio.sleep(0)
    reads.gate.set()
    answers = await asyncio.gather(*waiting)
    assert reads.calls == ["team-a"]
    assert {a[0]["metadata"]["name"] for a in answers} == {"q-team-a-1"}
    now[0] += 1.9
    assert (await recent.of("team-a"))[0]["metadata"]["name"] == "q-team-a-1"
    assert await recent.of("team-b") and reads.calls == ["team-a", "team-b"]
    now[0] += 0.2
    assert (await recent.of("team-a"))[0]["metadata"]["name"] == "q-team-a-3"


async def test_a_failed_read_is_not_kept() -> None:
    calls = 0

    async def failing(namespace: str) -> list[Json]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("refused")
        return []

    recent = RecentQuotas(failing)
    with pytest.raises(RuntimeError):
        await recent.of("team-a")
    assert await recent.of("team-a") == [] and calls == 2
