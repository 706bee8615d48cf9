"""A Kubernetes API server that accepts connections and never answers must not stall NuFi.

Every read of the cluster ends within NUFI_KUBE_TIMEOUT_SECONDS: the catalog still lists its types
(each with `inventory_error`), a snapshot still answers with a `kubernetes` entry in `errors`, and the
wizard's resource-key check is a 503 problem naming Kubernetes. The bounds below are generous on
purpose (the timeout plus two seconds): they tell a bounded wait from the 30 s that used to pass.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from nufi.api import create_app
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.config import Settings
from nufi.errors import DependencyUnavailable
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.asgi import serving
from support.env import clear_nufi_env
from support.loopback import serve_in_thread
from support.nufi_app import MEMORY_DATABASE, bearer

from .test_server_cluster import write_kubeconfig

TIMEOUT = 1.0
# The timeout, and time enough for the rest of the request on a busy machine.
BOUND = TIMEOUT + 2.0
PROBLEM = "application/problem+json"


@contextmanager
def hung_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A loopback server that accepts every connection and never sends a byte; yields its URL and
    the connections it holds."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(connection)

    thread = threading.Thread(target=accept, name="hung-kube-api", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", held
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_nufi_env(monkeypatch)


@dataclass
class HungWorld:
    client: httpx.AsyncClient
    held: list[socket.socket]
    user: dict[str, str]
    admin: dict[str, str]


@pytest.fixture
async def hung(
    tmp_path: Path, idp: IdentityProviderProcess, prometheus: PrometheusServer
) -> AsyncIterator[HungWorld]:
    """NuFi over a hung Kubernetes API, with NUFI_KUBE_TIMEOUT_SECONDS set to TIMEOUT."""
    with hung_server() as (url, held):
        settings = Settings(
            kubeconfig=write_kubeconfig(tmp_path / "kubeconfig", url),
            kube_timeout_seconds=TIMEOUT,
            prometheus_url=prometheus.url,
            database_url=SecretStr(MEMORY_DATABASE),
            oidc_issuer=idp.issuer,
        )
        async with serving(create_app(settings), client_timeout=60.0) as client:
            yield HungWorld(
                client,
                held,
                bearer(idp.password_token("user", "user")),
                bearer(idp.password_token("admin", "admin")),
            )


async def timed(request: Awaitable[httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = await request
    return response, time.monotonic() - started


async def test_the_catalog_lists_every_type_while_the_api_server_hangs(hung: HungWorld) -> None:
    listed, seconds = await timed(hung.client.get("/api/v1/devices", headers=hung.user))
    assert listed.status_code == 200, listed.text
    assert seconds < BOUND, f"GET /api/v1/devices took {seconds:.1f} s with a {TIMEOUT:g} s timeout"
    # The API server really was asked, and held the request without answering.
    assert hung.held
    rows = listed.json()["items"]
    assert {"nvidia-gpu", "furiosa-rngd", "rebellions-atom"} <= {row["id"] for row in rows}
    for row in rows:
        assert row["inventory"] is None
        assert f"within {TIMEOUT:g} s" in row["inventory_error"], row["inventory_error"]
        assert (
            "Kubernetes" in row["inventory_error"] and "NUFI_KUBE_TIMEOUT_SECONDS" in row["inventory_error"]
        )


async def test_a_snapshot_answers_with_a_kubernetes_error_while_the_api_server_hangs(
    hung: HungWorld,
) -> None:
    snapshot, seconds = await timed(hung.client.get("/api/v1/monitoring/nvidia-gpu", headers=hung.user))
    assert snapshot.status_code == 200, snapshot.text
    assert seconds < BOUND, f"the snapshot took {seconds:.1f} s with a {TIMEOUT:g} s timeout"
    kubernetes = [error for error in snapshot.json()["errors"] if error["source"] == "kubernetes"]
    assert len(kubernetes) == 1, snapshot.json()["errors"]
    assert f"within {TIMEOUT:g} s" in kubernetes[0]["message"]


async def test_the_resource_key_check_is_a_503_naming_kubernetes_after_the_timeout(hung: HungWorld) -> None:
    checked, seconds = await timed(
        hung.client.post(
            "/api/v1/admin/devices/check-resource-key",
            json={"resource_key": "hyperaccel.ai/lpu"},
            headers=hung.admin,
        )
    )
    assert checked.status_code == 503, checked.text
    assert checked.headers["content-type"] == PROBLEM
    # About the timeout: not at once (it did wait for an answer), and not much longer.
    assert TIMEOUT * 0.9 <= seconds < BOUND, f"took {seconds:.1f} s with a {TIMEOUT:g} s timeout"
    problem = checked.json()
    assert problem["dependency"] == "kubernetes"
    assert f"within {TIMEOUT:g} s" in problem["detail"] and "Kubernetes API" in problem["detail"]


# Every page of this API server comes after PAGE_DELAY and says there is another: each page is quick
# enough for a per-request timeout, and together they never end.
PAGE_DELAY = 0.2


async def endless_page(request: Request) -> JSONResponse:
    await asyncio.sleep(PAGE_DELAY)
    page = int(request.query_params.get("continue") or 0)
    return JSONResponse(
        {"kind": "List", "apiVersion": "v1", "metadata": {"continue": str(page + 1)}, "items": []}
    )


async def test_pages_that_never_end_cannot_add_up_past_the_timeout(tmp_path: Path) -> None:
    app = Starlette(routes=[Route("/api/v1/nodes", endless_page), Route("/api/v1/pods", endless_page)])
    with serve_in_thread(app, name="endless-kube-api") as url:
        settings = Settings(
            kubeconfig=write_kubeconfig(tmp_path / "kubeconfig", url), kube_timeout_seconds=TIMEOUT
        )
        gateway = ClusterGateway.from_settings(settings, environ={})
        try:
            started = time.monotonic()
            with pytest.raises(DependencyUnavailable) as raised:
                await ClusterReader(gateway).state()
            seconds = time.monotonic() - started
        finally:
            await gateway.close()
    assert seconds < BOUND, f"the paginated read took {seconds:.1f} s with a {TIMEOUT:g} s timeout"
    assert raised.value.extra["dependency"] == "kubernetes"
    assert url in raised.value.detail and f"within {TIMEOUT:g} s" in raised.value.detail
