"""A Prometheus that stops: every monitoring endpoint answers 503 with a problem naming prometheus."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer

from .monitoring_app import bearer, nufi_settings, serve

PROBLEM = "application/problem+json"


async def test_a_stopped_prometheus_is_a_503_problem(
    tmp_path: Path, identity: IdentityProviderProcess
) -> None:
    server = PrometheusServer(work_dir=tmp_path / "prometheus").start()
    try:
        async with AsyncExitStack() as stack:
            nufi = await serve(nufi_settings(identity, server.url, None), stack)
            user = bearer(identity, "user")
            running = await nufi.get("/api/v1/monitoring/nvidia-gpu", headers=user)
            assert running.status_code == 200, running.text
            assert running.json()["summary"]["devices"] == 0

            server.stop()

            for path, params in (
                ("/api/v1/monitoring/nvidia-gpu", {}),
                ("/api/v1/monitoring/overview", {}),
                ("/api/v1/monitoring/nvidia-gpu/range", {"metric": "memory"}),
            ):
                response = await nufi.get(path, params=params, headers=user)
                assert response.status_code == 503, (path, response.text)
                assert response.headers["content-type"] == PROBLEM
                problem = response.json()
                assert problem["type"] == "prometheus-unavailable" and problem["dependency"] == "prometheus"
                assert server.url in problem["detail"]
    finally:
        server.stop()
