"""A Prometheus that stops: a type evaluated before is served from its last good snapshot, with the
failure in `errors` and a growing age; one never evaluated, and time ranges, answer 503 naming prometheus."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.engines import metrics_server
from support.polling import until
from support.world import serve

from .monitoring_app import bearer, nufi_settings

PROBLEM = "application/problem+json"


async def test_a_stopped_prometheus_is_a_503_problem(
    tmp_path: Path, idp: IdentityProviderProcess, request: pytest.FixtureRequest
) -> None:
    server = metrics_server(request.config, work_dir=tmp_path / "prometheus").start()
    try:
        async with AsyncExitStack() as stack:
            nufi = await stack.enter_async_context(serve(nufi_settings(idp, server.url, None)))
            user = bearer(idp, "user")
            running = await nufi.get("/api/v1/monitoring/nvidia-gpu", headers=user)
            assert running.status_code == 200, running.text
            assert running.json()["summary"]["devices"] == 0

            server.stop()

            async def failed_over() -> httpx.Response | None:
                response = await nufi.get("/api/v1/monitoring/nvidia-gpu", headers=user)
                assert response.status_code == 200, response.text
                errors = response.json()["errors"]
                return response if errors and errors[0]["source"] == "prometheus" else None

            last_good = await until(failed_over, within=20)
            assert last_good is not None
            body = last_good.json()
            # The last evaluation that succeeded: the first read's, or one that landed before the stop.
            assert body["time"] >= running.json()["time"]
            assert server.url in body["errors"][0]["message"]
            assert "showing the last good snapshot" in body["errors"][0]["message"]
            later = await until(lambda: older_than(nufi, user, body["age_seconds"]), within=20)
            assert later is not None and later["time"] == body["time"]

            for path, params in (
                ("/api/v1/monitoring/furiosa-rngd", {}),
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


async def older_than(nufi: httpx.AsyncClient, user: dict[str, str], age: float) -> dict[str, Any] | None:
    body: dict[str, Any] = (await nufi.get("/api/v1/monitoring/nvidia-gpu", headers=user)).json()
    return body if body["age_seconds"] > age else None
