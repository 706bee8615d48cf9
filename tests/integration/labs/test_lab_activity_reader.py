"""Labs' activity read over the client the lab proxy uses (`ServiceClient` on a `ClusterDnsRoute`),
from a server answering as code-server does (`code_server_double`): the heartbeat moves with use, a
reading is kept for its time, a page's labs are read together, and a lab that hangs or is not
code-server is "unreachable" within the timeout."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import httpx
import pytest

from nufi.cluster.service_route import ClusterDnsRoute, ServiceClient
from nufi.workloads.labs.activity_reader import ActivityReader
from nufi.workloads.labs.model import Lab, LabAccelerator, LabStatus
from support.loopback import closed_port, serve_in_thread

from .code_server_double import CodeServers

TIMEOUT = 1.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def servers() -> Iterator[tuple[CodeServers, str]]:
    double = CodeServers()
    with serve_in_thread(double.app(), name="code-server-double") as url:
        yield double, url


@pytest.fixture
async def upstreams(servers: tuple[CodeServers, str]) -> AsyncIterator[ServiceClient]:
    client = ServiceClient(ClusterDnsRoute(servers[1] + "/{namespace}/{service}"))
    yield client
    await client.close()


def lab(name: str, status: LabStatus = "Ready", kind: str = "vscode") -> Lab:
    return Lab(
        project="team",
        name=name,
        kind="vscode" if kind == "vscode" else "jupyter",
        image="codercom/code-server",
        backend="statefulset",
        accelerator=LabAccelerator("lpu", "hyperaccel.ai/lpu", 1),
        storage_gib=5,
        status=status,
        url=f"/labs/team/{name}/",
    )


async def test_the_heartbeat_is_read_and_moves_when_the_lab_is_used(
    servers: tuple[CodeServers, str], upstreams: ServiceClient
) -> None:
    clock = Clock()
    reader = ActivityReader(upstreams, cache_seconds=10, timeout_seconds=TIMEOUT, clock=clock)
    first = await reader.read(lab("code"))
    # Started and never used: no heartbeat yet, said as such (not unknown).
    assert (first.source, first.state, first.last_active) == ("code-server", "idle", None)
    before = datetime.now(UTC)
    async with httpx.AsyncClient(timeout=5) as client:
        (await client.get(f"{servers[1]}/team/code/")).raise_for_status()  # the workbench loads
    # Kept for its time: the lab is not asked again until the reading is old.
    assert await reader.read(lab("code")) == first
    assert servers[0].health_reads["team/code"] == 1
    clock.now += 10
    used = await reader.read(lab("code"))
    assert used.state == "alive"
    assert used.last_active is not None and used.last_active >= before.replace(microsecond=0)
    assert servers[0].health_reads["team/code"] == 2


async def test_a_page_of_labs_is_read_together_and_only_its_running_ones(
    servers: tuple[CodeServers, str], upstreams: ServiceClient
) -> None:
    double = servers[0]
    double.hold_for = 50
    reader = ActivityReader(upstreams, cache_seconds=10, timeout_seconds=double.hold_seconds + 2)
    labs = [lab(f"slow-{index}") for index in range(50)] + [lab("stopped", "Stopped"), lab("new", "Starting")]
    shown = await reader.with_activity(labs)
    # All fifty were waiting at the lab at once: one round, not fifty calls in a row.
    assert double.most_waiting == 50
    assert [item.name for item in shown] == [item.name for item in labs]
    assert {item.activity.state for item in shown[:50] if item.activity is not None} == {"idle"}
    assert shown[50].activity is None and shown[51].activity is None
    assert "team/stopped" not in double.health_reads and "team/new" not in double.health_reads


async def test_a_lab_that_hangs_or_is_not_code_server_is_unreachable_within_the_timeout(
    servers: tuple[CodeServers, str], upstreams: ServiceClient
) -> None:
    reader = ActivityReader(upstreams, cache_seconds=10, timeout_seconds=TIMEOUT)
    started = time.monotonic()
    hung = await reader.read(lab("hang-1"))
    assert time.monotonic() - started < TIMEOUT + 2
    assert (hung.state, hung.last_active) == ("unreachable", None)
    # A Jupyter lab's status is asked under its prefix; this server has no Jupyter there.
    other = await reader.read(lab("nb", kind="jupyter"))
    assert (other.source, other.state, other.last_active) == ("jupyter", "unreachable", None)
    # Kept as well: a hanging lab costs its readers one timeout per reading, not one per page.
    started = time.monotonic()
    assert await reader.read(lab("hang-1")) == hung
    assert time.monotonic() - started < 0.5


async def test_nothing_listening_is_unreachable() -> None:
    closed = ServiceClient(ClusterDnsRoute(f"http://127.0.0.1:{closed_port()}/{{namespace}}/{{service}}"))
    try:
        reader = ActivityReader(closed, cache_seconds=10, timeout_seconds=TIMEOUT)
        assert (await reader.read(lab("code"))).state == "unreachable"
    finally:
        await closed.close()
