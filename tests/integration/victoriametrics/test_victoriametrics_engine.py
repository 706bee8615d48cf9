"""NuFi on VictoriaMetrics (Debian's `victoria-metrics`, default query settings) beside the run's
Prometheus: the launcher scrapes like Prometheus, and the gateway reads what each engine means."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import CollectorRegistry, Gauge
from pydantic import SecretStr

from nufi.auth import Principal
from nufi.cluster import ClusterGateway, ClusterReader
from nufi.config import Settings
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.official.nvidia import PRESET, DcgmFetcher
from nufi.devices.spec import DeviceType
from nufi.errors import NotFound
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.settings import MonitoringSettings
from nufi.monitoring.snapshots.freshness import SeriesMemory
from nufi.monitoring.snapshots.probe import ReducedQueries
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.prom import PrometheusGateway, PrometheusQueryRejected
from nufi.prom.budgets import subquery_points_problem
from nufi.thermal.protection.temperatures import temperatures
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from nufi_sandbox.victoriametrics import VictoriaMetricsServer
from support.exporter import serving_registry, serving_text
from support.polling import until
from support.prometheus_jobs import retire_jobs
from support.thermal_policy import thermal_policy
from support.world import serve

JOB = "vm-engine"


_REGISTRY = CollectorRegistry()
# One device's temperature, as a vendor exporter gives it; tests set it and watch it arrive.
TEMPERATURE = Gauge("vm_engine_temperature", "A device's temperature.", ["device"], registry=_REGISTRY)


DCGM_JOB = "vm-dcgm"
# A DCGM exporter scraped with honor_labels, as the GPU Operator's ServiceMonitor may: the busy GPU's
# series name its pod, the idle one's only what the target adds (the exporter's own pod and container).
DCGM_EXPOSITION = """\
DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="vm-gpu-1"} 0
DCGM_FI_DEV_GPU_UTIL{gpu="1",Hostname="vm-gpu-1",pod="train-0",namespace="ml",container="main"} 90
"""
DCGM_TARGET = {
    "pod": "nvidia-dcgm-exporter-ab12c",
    "namespace": "gpu-operator",
    "container": "nvidia-dcgm-exporter",
}


@pytest.fixture(scope="module")
def victoriametrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VictoriaMetricsServer]:
    TEMPERATURE.labels(device="d0").set(41.0)
    with (
        serving_registry(_REGISTRY, name="vm-engine-exporter") as address,
        serving_text(DCGM_EXPOSITION, name="vm-dcgm-exporter") as dcgm,
    ):
        work = tmp_path_factory.mktemp("victoriametrics")
        jobs = [ScrapeJob(JOB, [address]), ScrapeJob(DCGM_JOB, [dcgm], honor_labels=True, labels=DCGM_TARGET)]
        with VictoriaMetricsServer(jobs=jobs, work_dir=work) as server:
            yield server


@pytest.fixture
async def gateway(victoriametrics: VictoriaMetricsServer) -> AsyncIterator[PrometheusGateway]:
    gateway = PrometheusGateway(victoriametrics.url, timeout_seconds=10)
    try:
        yield gateway
    finally:
        await gateway.close()


async def test_scrapes_an_exporter_and_answers_queries(
    victoriametrics: VictoriaMetricsServer, gateway: PrometheusGateway
) -> None:
    target = await victoriametrics.wait_for_target(JOB)
    assert target["labels"]["job"] == JOB
    # Its default -search.latencyOffset hides the newest 30 s, so the first sample takes that long.
    await victoriametrics.wait_for_series(f'vm_engine_temperature{{job="{JOB}"}}', timeout=60)
    result = await gateway.query(f'vm_engine_temperature{{job="{JOB}"}}')
    (sample,) = result.samples
    assert (sample.metric["device"], sample.value) == ("d0", 41.0)
    assert (await gateway.check()).ok
    assert abs(sample.timestamp - time.time()) < 60


async def test_under_its_prometheus_path_prefix_nufi_is_ready_and_reads(
    victoriametrics: VictoriaMetricsServer,
) -> None:
    # The URL shape of vmselect (/select/<tenant>/prometheus) and Mimir (/prometheus): no /-/ready there.
    url = f"{victoriametrics.url}/prometheus"
    async with httpx.AsyncClient(timeout=10) as plain:
        assert (await plain.get(f"{url}/-/ready")).status_code != 200
    await victoriametrics.wait_for_series(f'vm_engine_temperature{{job="{JOB}"}}', timeout=60)
    async with serve(Settings(prometheus_url=url)) as client:
        ready = await client.get("/readyz")
    assert ready.status_code == 200, ready.text
    # Reported, not required: the status code alone would not tell that the engine answered.
    assert {d["name"]: d for d in ready.json()["dependencies"]}["prometheus"]["ok"], ready.text
    gateway = PrometheusGateway(url, timeout_seconds=10)
    try:
        (sample,) = (await gateway.query(f'vm_engine_temperature{{job="{JOB}"}}')).samples
        now = time.time()
        (series,) = (
            await gateway.query_range(
                f'vm_engine_temperature{{job="{JOB}"}}', start=now - 60, end=now, step_seconds=5
            )
        ).series
    finally:
        await gateway.close()
    assert sample.value == 41.0 and series.points


# A query neither engine can parse, and one neither can execute (many-to-many matching).
REFUSED = [
    "sum(vm_engine_temperature",
    'label_replace(vector(1),"a","b","","") + on() group_left() '
    '(label_replace(vector(1),"x","1","","") or label_replace(vector(2),"x","2","",""))',
]


@pytest.mark.parametrize("promql", REFUSED, ids=["parse", "execution"])
async def test_both_engines_refusals_are_rejected_queries(
    promql: str, victoriametrics: VictoriaMetricsServer, prometheus: PrometheusServer
) -> None:
    seen: dict[str, str] = {}
    for engine in (victoriametrics, prometheus):
        gateway = PrometheusGateway(engine.url, timeout_seconds=10)
        try:
            with pytest.raises(PrometheusQueryRejected) as caught:
                await gateway.query(promql)
        finally:
            await gateway.close()
        assert caught.value.status == 422
        seen[engine.name] = caught.value.error_type
    # What each engine writes in errorType differs; what NuFi makes of it does not.
    assert seen["VictoriaMetrics"] == "422"
    assert seen["Prometheus"] in {"bad_data", "execution"}


SCRAPE_SECONDS = 1.0
READER = Principal(subject="u", username="u", roles=frozenset())
VM_TYPE = DeviceType.model_validate(
    {
        "id": "vm-engine",
        "name": "vm-engine",
        "vendor": "HyperAccel",
        "kind": "custom",
        "resource_key": "example.com/vm-engine",
        "labels": {"node": "job", "device": "device"},
        "metrics": {"utilization": "vm_engine_temperature", "temperature": "vm_engine_temperature"},
    }
)


class OneType:
    async def list(self, principal: Principal | None, *, enabled_only: bool = False) -> list[DeviceType]:
        return [VM_TYPE]

    async def get(self, principal: Principal | None, device_type_id: str) -> DeviceType:
        if device_type_id != VM_TYPE.id:
            raise NotFound(code="device_type.not_found", params={"device_type": device_type_id})
        return VM_TYPE


@pytest.fixture(params=["victoriametrics", "prometheus"])
async def engine(
    request: pytest.FixtureRequest, victoriametrics: VictoriaMetricsServer
) -> AsyncIterator[PrometheusServer]:
    """An engine scraping the module's exporter, with its first sample visible to queries."""
    if request.param == "victoriametrics":
        await victoriametrics.wait_for_series(f'vm_engine_temperature{{job="{JOB}"}}', timeout=60)
        await victoriametrics.wait_for_series(f'DCGM_FI_DEV_GPU_UTIL{{job="{DCGM_JOB}"}}', timeout=30)
        yield victoriametrics
        return
    prometheus: PrometheusServer = request.getfixturevalue("prometheus")
    await retire_jobs(prometheus)
    prometheus.set_jobs(victoriametrics.jobs)
    try:
        await prometheus.wait_for_series(f'vm_engine_temperature{{job="{JOB}"}} == 41', timeout=30)
        await prometheus.wait_for_series(f'DCGM_FI_DEV_GPU_UTIL{{job="{DCGM_JOB}"}}', timeout=30)
        yield prometheus
    finally:
        await retire_jobs(prometheus)


async def test_a_hot_device_shows_in_two_scrape_intervals_or_the_data_is_said_late(
    engine: PrometheusServer,
) -> None:
    gateway = PrometheusGateway(engine.url, timeout_seconds=10)
    settings = MonitoringSettings(scrape_interval_seconds=SCRAPE_SECONDS)
    monitoring = MonitoringService(
        OneType(),
        FetcherRegistry(builtin_fetchers()),
        ClusterReader(ClusterGateway(None)),
        gateway,
        settings,
        background=False,
    )
    try:
        TEMPERATURE.labels(device="d0").set(95.0)
        heated = time.time()

        async def hot_or_late() -> Snapshot | None:
            snapshot = await monitoring.snapshot(READER, VM_TYPE.id)
            shown = snapshot.nodes[0].devices[0].temperature_celsius if snapshot.nodes else None
            late = [e for e in snapshot.errors if e.code == "metrics_backend.lagging"]
            return snapshot if shown == 95.0 or late else None

        snapshot = await until(hot_or_late, within=10, every=0.2, what="95 °C shown or the data said late")
        usable = temperatures(snapshot, max_age_seconds=settings.stale_after_seconds)
        if snapshot.nodes[0].devices[0].temperature_celsius == 95.0:
            assert time.time() - heated <= 2 * SCRAPE_SECONDS + 1.0
            assert usable.unusable is None and snapshot.age_seconds < settings.stale_after_seconds
        else:
            # The old value is shown, with how late it is; the thermal controller waits.
            assert snapshot.lag_seconds > settings.stale_after_seconds
            assert snapshot.age_seconds >= snapshot.lag_seconds
            assert usable.unusable is not None and usable.unusable.code == "thermal.stale.snapshot_old"
        if engine.name == "VictoriaMetrics":
            # Its default -search.latencyOffset hides the newest 30 s: the data is late, and said so.
            assert snapshot.lag_seconds >= 25
        else:
            assert snapshot.lag_seconds < 2 * SCRAPE_SECONDS
    finally:
        TEMPERATURE.labels(device="d0").set(41.0)
        await monitoring.close()
        await gateway.close()


async def test_the_subquery_budget_is_the_one_victoriametrics_enforces_over_a_day(
    victoriametrics: VictoriaMetricsServer, gateway: PrometheusGateway
) -> None:
    # Just within what NuFi accepts, the day's chart answers; one step finer, which NuFi refuses,
    # VictoriaMetrics refuses too (30,103 points: it aligns the range to the steps), with a 422.
    limits = gateway.admin_limits
    end = time.time()
    start = end - limits.longest_span_seconds
    step = limits.longest_span_seconds / 500
    accepted, refused = (
        "max_over_time(vm_engine_temperature[1h:4s])",
        "max_over_time(vm_engine_temperature[1h:3s])",
    )
    for expression, within in ((accepted, True), (refused, False)):
        problem = subquery_points_problem(
            expression, span_seconds=limits.longest_span_seconds, max_points=limits.max_points_per_series
        )
        assert (problem is None) == within
    await gateway.query_range(accepted, start, end, step)
    with pytest.raises(PrometheusQueryRejected) as caught:
        await gateway.query_range(refused, start, end, step)
    assert "maxPointsPerTimeseries" in caught.value.error


async def test_an_idle_nvidia_gpu_has_no_pod_on_either_engine(engine: PrometheusServer) -> None:
    gateway = PrometheusGateway(engine.url, timeout_seconds=10)
    fetcher = DcgmFetcher()
    probe = ReducedQueries(
        gateway,
        memory=SeriesMemory(window_seconds=60),
        now=time.time(),
        keep_labels=fetcher.labels_read(PRESET) or (),
    )
    try:
        readings = await fetcher.readings(PRESET, probe)
    finally:
        await gateway.close()
    held = {(r.node, r.device): (r.pod, r.namespace) for r in readings.devices if r.node == "vm-gpu-1"}
    assert held == {("vm-gpu-1", "0"): (None, None), ("vm-gpu-1", "1"): ("train-0", "ml")}


# The finest subquery NuFi accepts over its longest span (a day), and one step finer, which it refuses.
FINEST_ACCEPTED = 'max_over_time(vm_engine_history{job="vm-history"}[1h:4s])'
TOO_FINE = 'max_over_time(vm_engine_history{job="vm-history"}[1h:3s])'
POLICY = thermal_policy()
HOT_FROM, HOT_TO = 6 * 3600, 5 * 3600  # seconds before now: an hour at 95 °C, 50 °C the rest of the day


def fine_type(temperature: str) -> dict[str, Any]:
    return {
        "id": "vm-fine",
        "name": "vm-fine",
        "vendor": "HyperAccel",
        "resource_key": "example.com/vm-fine",
        "labels": {"node": "job", "device": "device"},
        "metrics": {"utilization": 'vm_engine_history{job="vm-history"}', "temperature": temperature},
    }


async def import_day(victoriametrics: VictoriaMetricsServer, now: float) -> None:
    """A day of one device's temperature, a sample a minute, through VictoriaMetrics' import API."""
    lines = []
    for ago in range(23 * 3600, 0, -60):
        value = 95 if HOT_TO <= ago < HOT_FROM else 50
        lines.append(f'vm_engine_history{{job="vm-history",device="h0"}} {value} {round((now - ago) * 1000)}')
    async with httpx.AsyncClient(timeout=30) as client:
        imported = await client.post(
            f"{victoriametrics.url}/api/v1/import/prometheus", content="\n".join(lines)
        )
        assert imported.status_code == 204, imported.text
    await victoriametrics.wait_for_series('vm_engine_history{job="vm-history"}', timeout=30)


@pytest.fixture
async def nufi(
    victoriametrics: VictoriaMetricsServer,
    idp: IdentityProviderProcess,
    cluster: DevClusterProcess,
    tmp_path: Path,
) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi over the run's dev cluster, reading the module's VictoriaMetrics with its default query
    settings."""
    settings = Settings(
        database_url=SecretStr(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"),
        oidc_issuer=idp.issuer,
        prometheus_url=victoriametrics.url,
        kubeconfig=cluster.kubeconfig,
        monitoring_scrape_interval_seconds=SCRAPE_SECONDS,
    )
    async with serve(settings) as client:
        yield client


async def test_the_day_and_the_dry_run_of_the_finest_accepted_expression_answer_on_victoriametrics(
    nufi: httpx.AsyncClient, idp: IdentityProviderProcess, victoriametrics: VictoriaMetricsServer
) -> None:
    now = time.time()
    await import_day(victoriametrics, now)
    admin = {"Authorization": f"Bearer {idp.password_token('admin', 'admin')}"}
    refused = await nufi.post(
        "/api/v1/admin/devices", json=fine_type(TOO_FINE), params={"force": "true"}, headers=admin
    )
    assert refused.status_code == 422, refused.text
    assert refused.json()["field"] == "metrics.temperature"
    saved = await nufi.post(
        "/api/v1/admin/devices", json=fine_type(FINEST_ACCEPTED), params={"force": "true"}, headers=admin
    )
    assert saved.status_code == 201, saved.text
    day = {"start": str(now - 86400), "end": str(now)}
    history = await nufi.get(
        "/api/v1/monitoring/vm-fine/range", params={"metric": "temperature", **day}, headers=admin
    )
    assert history.status_code == 200, history.text
    (series,) = history.json()["series"]
    assert max(value for _, value in series["values"]) == 95
    dry_run = await nufi.post(
        "/api/v1/admin/thermal/policies/vm-fine/dry-run", json={"policy": POLICY, **day}, headers=admin
    )
    assert dry_run.status_code == 200, dry_run.text
    (episode,) = dry_run.json()["episodes"]
    assert episode["peak_celsius"] == 95


async def test_saving_a_type_whose_expression_victoriametrics_refuses_is_a_422_naming_the_field(
    nufi: httpx.AsyncClient, idp: IdentityProviderProcess
) -> None:
    admin = {"Authorization": f"Bearer {idp.password_token('admin', 'admin')}"}
    # The dev cluster's LPU nodes advertise the key, so only the expression can be wrong.
    faulty = {**fine_type('vm_engine_history{job="vm-history"}'), "resource_key": "hyperaccel.ai/lpu"}
    faulty["metrics"]["utilization"] = REFUSED[1]
    saved = await nufi.post("/api/v1/admin/devices", json=faulty, headers=admin)
    assert saved.status_code == 422, saved.text
    problem = saved.json()
    assert problem["field"] == "metrics.utilization" and problem["code"] == "save.metric_failed", problem
    (refusal,) = problem["params"]["problems"]
    assert refusal["code"] == "metric_check.rejected" and refusal["params"]["error_type"] == "422"
    listed = await nufi.get("/api/v1/devices", headers=admin)
    assert "vm-fine" not in {item["id"] for item in listed.json()["items"]}
