"""ClusterGateway and /readyz against a small fake Kubernetes API server on loopback.

The fake (a Starlette app run by uvicorn in a thread on a free port) answers GET /version like a real
API server, so kubernetes-asyncio's client runs unmocked with a real kubeconfig.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from nufi.api import create_app
from nufi.cluster import ClusterGateway
from nufi.config import Settings
from nufi.errors import DependencyUnavailable
from nufi_sandbox.prometheus import PrometheusServer
from support.asgi import serving
from support.env import clear_nufi_env
from support.loopback import closed_port, serve_in_thread

KUBE_TOKEN = "fake-sa-token-0123"
KUBE_VERSION = {
    "major": "1",
    "minor": "31",
    "gitVersion": "v1.31.2",
    "gitCommit": "5864a4677267e6adeae276ad85882a8714d69d9d",
    "gitTreeState": "clean",
    "buildDate": "2024-10-22T20:28:14Z",
    "goVersion": "go1.22.8",
    "compiler": "gc",
    "platform": "linux/amd64",
}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_nufi_env(monkeypatch)


@dataclass
class FakeKubeApi:
    authorizations: list[str | None] = field(default_factory=list)

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/version", self.version)])

    async def version(self, request: Request) -> Response:
        authorization = request.headers.get("authorization")
        self.authorizations.append(authorization)
        if authorization != f"Bearer {KUBE_TOKEN}":
            status = {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "Unauthorized",
                "reason": "Unauthorized",
                "code": 401,
            }
            return JSONResponse(status, status_code=401)
        return JSONResponse(KUBE_VERSION)


@pytest.fixture(scope="module")
def fake_kube() -> Iterator[tuple[FakeKubeApi, str]]:
    fake = FakeKubeApi()
    with serve_in_thread(fake.app()) as url:
        yield fake, url


def write_kubeconfig(path: Path, server: str, token: str = KUBE_TOKEN) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": server}}],
        "users": [{"name": "tester", "user": {"token": token}}],
        "contexts": [
            {"name": "fake", "context": {"cluster": "fake", "user": "tester"}},
            {"name": "elsewhere", "context": {"cluster": "fake", "user": "tester"}},
        ],
        "current-context": "fake",
    }
    path.write_text(yaml.safe_dump(config))
    return path


async def check_cluster(settings: Settings) -> tuple[bool, bool, str]:
    gateway = ClusterGateway.from_settings(settings, environ={})
    try:
        status = await gateway.check()
    finally:
        await gateway.close()
    return status.ok, status.configured, status.detail


async def test_cluster_check_is_ok_against_an_api_server(
    fake_kube: tuple[FakeKubeApi, str], tmp_path: Path
) -> None:
    fake, url = fake_kube
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url)
    ok, configured, detail = await check_cluster(Settings(kubeconfig=kubeconfig, kube_context="elsewhere"))
    assert (ok, configured) == (True, True)
    assert detail == f"Kubernetes v1.31.2 at {url}"
    assert fake.authorizations[-1] == f"Bearer {KUBE_TOKEN}"


async def test_cluster_check_reports_rejected_credentials(
    fake_kube: tuple[FakeKubeApi, str], tmp_path: Path
) -> None:
    _, url = fake_kube
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url, token="wrong")
    ok, _, detail = await check_cluster(Settings(kubeconfig=kubeconfig))
    assert not ok
    assert f"Kubernetes API at {url} answered HTTP 401" in detail
    assert "check the credentials in kubeconfig" in detail


async def test_cluster_check_against_a_closed_port_is_not_ok(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url)
    ok, configured, detail = await check_cluster(Settings(kubeconfig=kubeconfig))
    assert (ok, configured) == (False, True)
    assert detail.startswith(f"cannot connect to the Kubernetes API at {url}: ")
    assert "refused" in detail.lower()


async def test_missing_kubeconfig_is_reported_and_retried(
    fake_kube: tuple[FakeKubeApi, str], tmp_path: Path
) -> None:
    _, url = fake_kube
    path = tmp_path / "later" / "kubeconfig"
    gateway = ClusterGateway.from_settings(Settings(kubeconfig=path), environ={})
    try:
        first = await gateway.check()
        assert (first.ok, first.configured) == (False, True)
        assert f"cannot load Kubernetes credentials from kubeconfig '{path}'" in first.detail
        with pytest.raises(DependencyUnavailable):
            await gateway.api_client()
        # Mounted a moment after start-up (a Secret volume, say): picked up on the next check.
        path.parent.mkdir()
        write_kubeconfig(path, url)
        assert (await gateway.check()).ok
    finally:
        await gateway.close()


async def test_unknown_context_is_reported(fake_kube: tuple[FakeKubeApi, str], tmp_path: Path) -> None:
    _, url = fake_kube
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url)
    ok, _, detail = await check_cluster(Settings(kubeconfig=kubeconfig, kube_context="nope"))
    assert not ok
    assert "context 'nope'" in detail


async def test_readyz_names_kubernetes_when_its_api_is_down_and_stays_ready(tmp_path: Path) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", f"http://127.0.0.1:{closed_port()}")
    async with serving(create_app(Settings(kubeconfig=kubeconfig))) as client:
        response = await client.get("/readyz")
    # The routes that need Kubernetes answer 503 naming it; the catalog and the rest keep serving.
    assert response.status_code == 200, response.text
    status = {d["name"]: d for d in response.json()["dependencies"]}["kubernetes"]
    assert (status["ok"], status["required"]) == (False, False)
    assert "cannot connect to the Kubernetes API" in status["detail"]


async def test_readyz_is_ok_with_kubernetes_and_the_real_prometheus_up(
    fake_kube: tuple[FakeKubeApi, str], prometheus: PrometheusServer, tmp_path: Path
) -> None:
    _, kube_url = fake_kube
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", kube_url)
    async with serving(create_app(Settings(kubeconfig=kubeconfig, prometheus_url=prometheus.url))) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    by_name = {d["name"]: d for d in response.json()["dependencies"]}
    # The background jobs report too (tests/integration/server/test_server_background_jobs.py), and
    # never decide readiness: the fake API server answers /version only, so the cache's watches fail.
    jobs = {name: by_name.pop(name) for name in list(by_name) if name.startswith("background/")}
    assert jobs and not any(job["required"] for job in jobs.values())
    assert set(by_name) == {
        "kubernetes",
        "cluster-cache",
        "prometheus",
        "database",
        "alert_rules",
        "metrics-freshness",
    }
    # No PrometheusRule served and no rules directory: alert rules are listed as not configured.
    assert by_name.pop("alert_rules")["configured"] is False
    assert all(d["ok"] and d["configured"] for d in by_name.values())
    # No type has been read yet: how late the data is is not known, and that is fine.
    assert by_name["metrics-freshness"]["detail"].startswith("no device type has been read yet")
    assert by_name["kubernetes"]["detail"] == f"Kubernetes v1.31.2 at {kube_url}"
    # The fake answers /version only: the cache cannot list, and reads fall back without unreadiness.
    assert by_name["cluster-cache"]["detail"].startswith("falling back to direct lists: ")
