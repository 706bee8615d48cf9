"""NuFi on VictoriaMetrics (Debian's `victoria-metrics`, default query settings) beside the run's
Prometheus: the launcher scrapes like Prometheus, and the gateway reads what each engine means."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator

import pytest
from prometheus_client import CollectorRegistry, Gauge

from nufi.prom import PrometheusGateway
from nufi_sandbox.prometheus import ScrapeJob
from nufi_sandbox.victoriametrics import VictoriaMetricsServer
from support.exporter import serving_registry

JOB = "vm-engine"


_REGISTRY = CollectorRegistry()
# One device's temperature, as a vendor exporter gives it; tests set it and watch it arrive.
TEMPERATURE = Gauge("vm_engine_temperature", "A device's temperature.", ["device"], registry=_REGISTRY)


@pytest.fixture(scope="module")
def victoriametrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VictoriaMetricsServer]:
    TEMPERATURE.labels(device="d0").set(41.0)
    with serving_registry(_REGISTRY, name="vm-engine-exporter") as address:
        work = tmp_path_factory.mktemp("victoriametrics")
        with VictoriaMetricsServer(jobs=[ScrapeJob(JOB, [address])], work_dir=work) as server:
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
