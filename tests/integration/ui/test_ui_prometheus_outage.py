"""Prometheus going down degrades NuFi, it does not take it down: `nufi serve` over the dev cluster and
a Prometheus of the test's own, which the test stops. The replica stays ready (so an orchestrator keeps
it in its Service), `/readyz` names Prometheus as failing, and the catalog, projects and deployments
answer with their content, over the API and on the dashboard's pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.lpu_type import lpu_type
from support.polling import poll
from support.world import deployment_body, project_name

from .served_dashboard import Served, served_dashboard, sign_in


@pytest.fixture
def own_prometheus(tmp_path: Path) -> Iterator[PrometheusServer]:
    server = PrometheusServer(work_dir=tmp_path / "prometheus").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def served(
    tmp_path: Path, idp: IdentityProviderProcess, cluster: DevClusterProcess, own_prometheus: PrometheusServer
) -> Iterator[Served]:
    with served_dashboard(
        tmp_path,
        idp,
        NUFI_KUBECONFIG=str(cluster.kubeconfig),
        NUFI_PROMETHEUS_URL=own_prometheus.url,
    ) as running:
        yield running


def prometheus_status(served: Served) -> tuple[int, dict[str, object]]:
    ready = httpx.get(f"{served.url}/readyz", timeout=10)
    return ready.status_code, {d["name"]: d for d in ready.json()["dependencies"]}["prometheus"]


def test_with_prometheus_stopped_nufi_stays_ready_and_serves_what_does_not_need_it(
    served: Served, own_prometheus: PrometheusServer, idp: IdentityProviderProcess
) -> None:
    admin = {"Authorization": f"Bearer {idp.password_token('admin', 'admin')}"}
    api = httpx.Client(base_url=served.url, headers=admin, timeout=30)
    project = project_name()
    registered = api.post("/api/v1/admin/devices", json=lpu_type(), params={"force": "true"})
    assert registered.status_code == 201, registered.text
    assert api.post("/api/v1/admin/projects", json={"name": project, "members": []}).status_code == 201
    try:
        assert prometheus_status(served)[1]["ok"] is True

        own_prometheus.stop()

        def prometheus_failing() -> bool:
            return prometheus_status(served)[1]["ok"] is False

        poll(prometheus_failing, within=30, every=0.2, what="/readyz seeing Prometheus down")
        code, prometheus = prometheus_status(served)
        assert code == 200
        assert prometheus["required"] is False
        assert own_prometheus.url in str(prometheus["detail"])

        # Writes that need only Kubernetes and the database go through too.
        created = api.post(f"/api/v1/projects/{project}/deployments", json=deployment_body("outage"))
        assert created.status_code == 201, created.text

        devices = api.get("/api/v1/devices")
        assert devices.status_code == 200, devices.text
        assert "lpu" in [d["id"] for d in devices.json()["items"]]
        projects = api.get("/api/v1/projects")
        assert projects.status_code == 200, projects.text
        assert project in [p["name"] for p in projects.json()["items"]]
        deployments = api.get(f"/api/v1/projects/{project}/deployments")
        assert deployments.status_code == 200, deployments.text
        assert [d["name"] for d in deployments.json()["items"]] == ["outage"]

        session = sign_in(served, "admin", "admin")
        with httpx.Client(base_url=served.url, cookies={"nufi_session": session}, timeout=30) as browser:
            for path, shown in [
                ("/admin/devices", "HyperAccel LPU"),
                ("/admin/projects", project),
                (f"/deployments?project={project}", "outage"),
            ]:
                page = browser.get(path)
                assert page.status_code == 200, f"{path}: {page.text[:500]}"
                assert shown in page.text, path
            # The page that reads metrics says that it cannot, and is still a page.
            monitoring = browser.get("/")
            assert monitoring.status_code == 200, monitoring.text[:500]
            assert '"data-testid":"monitoring-unavailable"' in monitoring.text
            assert own_prometheus.url in monitoring.text
        # So does the API's.
        readings = api.get("/api/v1/monitoring/lpu")
        assert readings.status_code == 503, readings.text
        assert readings.json()["code"].startswith("prometheus."), readings.text
    finally:
        api.delete(f"/api/v1/admin/projects/{project}")
        api.close()
