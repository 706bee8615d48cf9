"""The NuFi app end to end over ASGI: health, readiness, metrics, version, docs."""

from __future__ import annotations

import pytest

from nufi import __version__
from nufi.api import create_app
from nufi.background.jobs import JOBS
from nufi.config import Settings
from support.asgi import serving
from support.loopback import closed_port

pytestmark = pytest.mark.usefixtures("clean_env")


async def test_healthz_is_ok_without_any_dependency() -> None:
    async with serving(create_app(Settings())) as client:
        response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_readyz_with_nothing_configured_is_ready_and_lists_dependencies() -> None:
    async with serving(create_app(Settings())) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    by_name = {d["name"]: d for d in body["dependencies"]}
    jobs = {name: by_name.pop(name) for name in list(by_name) if name.startswith("background/")}
    assert set(by_name) == {"kubernetes", "prometheus", "database", "alert_rules", "metrics-freshness"}
    # Every background job is listed too, whether it runs here or not, and never makes NuFi unready.
    assert set(jobs) == {f"background/{job.name}" for job in JOBS}
    assert not any(job["required"] for job in jobs.values())
    assert by_name.pop("database")["ok"] is True
    # Reported, but never what makes NuFi unready.
    assert by_name["alert_rules"]["required"] is False
    assert by_name["metrics-freshness"]["required"] is False
    for dependency in by_name.values():
        assert dependency["configured"] is False
        assert dependency["ok"] is False
        assert dependency["detail"].startswith("not configured")


async def test_readyz_stays_ready_listing_prometheus_as_failing_when_it_cannot_be_reached() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    async with serving(create_app(Settings(prometheus_url=url))) as client:
        response = await client.get("/readyz")
    # Only the pages and routes that read metrics need Prometheus: the replica keeps serving the rest.
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ready"
    by_name = {d["name"]: d for d in body["dependencies"]}
    prometheus = by_name["prometheus"]
    assert (prometheus["configured"], prometheus["ok"], prometheus["required"]) == (True, False, False)
    assert f"cannot connect to Prometheus at {url}" in prometheus["detail"]
    assert prometheus["latency_ms"] is not None
    assert by_name["database"]["required"] is True


async def test_metrics_count_requests_by_route_template_and_status() -> None:
    app = create_app(Settings())

    @app.get("/api/v1/things/{thing_id}")
    async def thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id}

    async with serving(app) as client:
        await client.get("/healthz")
        await client.get("/api/v1/things/a")
        await client.get("/api/v1/things/b")
        await client.get("/no/such/path")
        response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'nufi_http_requests_total{method="GET",route="/healthz",status="200"} 1.0' in text
    # Both concrete paths land on one series: the template, not the raw path.
    assert 'nufi_http_requests_total{method="GET",route="/api/v1/things/{thing_id}",status="200"} 2.0' in text
    assert 'nufi_http_requests_total{method="GET",route="unmatched",status="404"} 1.0' in text
    assert "/api/v1/things/a" not in text
    assert 'nufi_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 1.0' in text
    assert "process_cpu_seconds_total" in text


async def test_each_app_has_its_own_metrics_registry() -> None:
    first, second = create_app(Settings()), create_app(Settings())
    async with serving(first) as client:
        await client.get("/healthz")
    async with serving(second) as client:
        text = (await client.get("/metrics")).text
    assert 'route="/healthz"' not in text


async def test_version_reports_release_python_and_commit() -> None:
    async with serving(create_app(Settings(git_commit="0123abcd"))) as client:
        body = (await client.get("/api/v1/version")).json()
    assert body["version"] == __version__
    assert body["python"].count(".") == 2
    assert body["git_commit"] == "0123abcd"


async def test_version_takes_the_commit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_GIT_COMMIT", "feedbeef")
    async with serving(create_app()) as client:
        assert (await client.get("/api/v1/version")).json()["git_commit"] == "feedbeef"


async def test_version_omits_an_unknown_commit() -> None:
    async with serving(create_app(Settings())) as client:
        body = (await client.get("/api/v1/version")).json()
    assert "git_commit" not in body


async def test_openapi_docs_are_served() -> None:
    async with serving(create_app(Settings())) as client:
        docs = await client.get("/docs")
        schema = (await client.get("/openapi.json")).json()
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()
    assert {"/healthz", "/readyz", "/api/v1/version"} <= set(schema["paths"])
    assert "/metrics" not in schema["paths"]


async def test_request_id_is_echoed_or_generated() -> None:
    async with serving(create_app(Settings())) as client:
        echoed = await client.get("/healthz", headers={"X-Request-ID": "abc-123"})
        generated = await client.get("/healthz")
    assert echoed.headers["x-request-id"] == "abc-123"
    assert len(generated.headers["x-request-id"]) == 32
