"""An exporter started with a control token (as the sandbox starts each of its exporters) steers only for
requests carrying it: anyone else on the loopback (a sandbox pod) gets 401 from /control/override and
/control/absent, and cannot heat a node or silence it. /metrics, /healthz and the workloads' own
/control/load stay open."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator

import httpx
import pytest

from nufi_mock.exporter.config import CONTROL_TOKEN_ENV
from nufi_sandbox.processes import ManagedProcess, free_port

from .mock_support import wait_answering

NODE = "lpu-node-1"
HOT = {"node": NODE, "device": None, "metric": "temperature", "value": 99, "duration_seconds": 60}
SILENT = {"node": NODE, "device": 1}


class Steered:
    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token

    def request(self, method: str, path: str, token: str | None, body: object = None) -> httpx.Response:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.request(method, self.base + path, json=body, headers=headers, timeout=10.0)


@pytest.fixture(scope="module")
def exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Steered]:
    token = secrets.token_urlsafe(32)
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--profile", "lpu", "--nodes", NODE]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--no-pod-resources", "--interval", "0.2"]
    process = ManagedProcess(
        "exporter", argv, log_dir=tmp_path_factory.mktemp("logs"), env={CONTROL_TOKEN_ENV: token}
    ).start()
    try:
        wait_answering(process, f"127.0.0.1:{port}")
        assert token not in " ".join(process.argv)
        yield Steered(f"http://127.0.0.1:{port}", token)
    finally:
        process.stop()


@pytest.mark.parametrize("path", ["/control/override", "/control/absent"])
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("token", [None, "wrong", "truncated"])
def test_steering_without_the_token_is_unauthorized(
    exporter: Steered, path: str, method: str, token: str | None
) -> None:
    if token == "truncated":
        token = exporter.token[:-1]
    body = (HOT if path.endswith("override") else SILENT) if method == "POST" else None
    response = exporter.request(method, path, token, body)
    assert response.status_code == 401, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["field"] == "Authorization"
    assert "Bearer" in response.json()["detail"]


def test_nothing_was_forced_by_the_refused_requests(exporter: Steered) -> None:
    exporter.request("POST", "/control/override", "wrong", HOT)
    exporter.request("POST", "/control/absent", None, SILENT)
    assert exporter.request("GET", "/control/override", exporter.token).json() == {"overrides": []}
    assert exporter.request("GET", "/control/absent", exporter.token).json() == {"absent": []}
    assert "lpu_temperature_celsius{" in httpx.get(exporter.base + "/metrics", timeout=10.0).text


def test_the_token_steers(exporter: Steered) -> None:
    try:
        added = exporter.request("POST", "/control/override", exporter.token, HOT)
        assert added.status_code in (200, 201), added.text
        listed = exporter.request("GET", "/control/override", exporter.token).json()["overrides"]
        assert [(o["node"], o["value"]) for o in listed] == [(NODE, 99.0)]
        silenced = exporter.request("POST", "/control/absent", exporter.token, SILENT)
        assert silenced.status_code in (200, 201), silenced.text
    finally:
        assert exporter.request("DELETE", "/control/override", exporter.token).status_code == 200
        assert exporter.request("DELETE", "/control/absent", exporter.token).status_code == 200


def test_a_workload_reports_its_load_without_the_token(exporter: Steered) -> None:
    report = {"source": "bchat-0", "devices": ["lpu0"], "utilization": 50, "ttl_seconds": 5}
    assert exporter.request("POST", "/control/load", None, report).status_code in (200, 201)
    assert exporter.request("DELETE", "/control/load", None).status_code == 200
