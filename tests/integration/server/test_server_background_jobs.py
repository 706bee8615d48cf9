"""Every listed background job on /readyz and /metrics of a replica with Kubernetes and a database,
each running one with its last success, none making the replica unready."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from nufi.api import create_app
from nufi.background.jobs import JOBS, MONITORING_REFRESH
from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.asgi import serving
from support.dev_cluster import dev_cluster
from support.polling import until

pytestmark = pytest.mark.usefixtures("clean_env")
# Run by a read of a device type only; this replica reads none.
PERIODIC = {job.name for job in JOBS} - {MONITORING_REFRESH}


@pytest.fixture(scope="module")
def devcluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="jobs-", simulation=False, start_timeout=60) as cluster:
        yield cluster


async def test_every_job_reports_its_last_success_on_readyz_and_metrics(
    devcluster: DevClusterProcess, tmp_path: Path
) -> None:
    settings = Settings(
        kubeconfig=devcluster.kubeconfig,
        database_url=SecretStr(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"),
        thermal_interval_seconds=0.5,
        cluster_cache_watch_seconds=1,
    )
    async with serving(create_app(settings)) as client:
        jobs = await until(lambda: _all_succeeded(client), within=60, what="every job's first success")
        assert all(not entry["required"] and entry["ok"] for entry in jobs.values())
        metrics = await _metrics(client)
    for name in PERIODIC:
        assert metrics["nufi_background_job_running"][name] == 1.0
        assert metrics["nufi_background_job_last_success_timestamp_seconds"][name] > 0
        assert metrics["nufi_background_job_consecutive_failures"][name] == 0.0
        assert name in metrics["nufi_background_job_failures_total"]
    assert {job.name for job in JOBS} == set(metrics["nufi_background_job_running"])


async def _all_succeeded(client: httpx.AsyncClient) -> dict[str, dict[str, object]] | None:
    response = await client.get("/readyz")
    assert response.status_code == 200, response.text
    jobs = {
        d["name"].removeprefix("background/"): d
        for d in response.json()["dependencies"]
        if d["name"].startswith("background/")
    }
    assert set(jobs) == {job.name for job in JOBS}
    done = all("last success at" in str(jobs[name]["detail"]) for name in PERIODIC)
    return jobs if done else None


async def _metrics(client: httpx.AsyncClient) -> dict[str, dict[str, float]]:
    text = (await client.get("/metrics")).text
    found: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("nufi_background_job_"):
                found.setdefault(sample.name, {})[sample.labels["job"]] = sample.value
    return found
