"""What a person types reaches a real Prometheus as data: a type named `HyperAccel {{ LPU` is saved, its
rules load, a Prometheus started again on the same rule files starts, and its alert shows the name as
typed. A group Prometheus would refuse is not written, and the other types' rules still load.

Prometheus here scrapes an exporter of the test's own (one LPU at 999 °C, below the 1,000 °C beyond
which the hot rule never fires) and loads the rule files NuFi writes.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from nufi.alerts.rules import RuleGroup, rule_group
from nufi.alerts.targets import RulesFileTarget
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.config import Settings
from nufi.devices.spec import DeviceType, DeviceTypeCreate
from nufi.prom import PrometheusGateway
from nufi.services import Services, build_services
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.exporter import serving_text
from support.lpu_type import lpu_type
from support.polling import until

ADMIN = Principal(subject="a-1", username="alice", roles=frozenset({"nufi-admin"}))
TYPED = "HyperAccel {{ LPU"
HOT = 'node="lpu-node-1",device="0"'
EXPOSITION = "".join(
    f"{metric}{{{HOT}}} {value}\n"
    for metric, value in (
        ("lpu_temperature_celsius", 999),
        ("lpu_utilization_percent", 50),
        ("lpu_memory_used_bytes", 1),
        ("lpu_memory_total_bytes", 100),
    )
)


@pytest.fixture(scope="module")
def exporter() -> Iterator[str]:
    with serving_text(EXPOSITION, name="typed-names-exporter") as address:
        yield address


@pytest.fixture(scope="module")
def rules_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("typed-rules")


@pytest.fixture(scope="module")
def prometheus(rules_dir: Path, exporter: str) -> Iterator[PrometheusServer]:
    server = PrometheusServer(jobs=[ScrapeJob("lpu", [exporter])], rule_files=[f"{rules_dir}/*.yml"]).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def services(
    tmp_path: Path, rules_dir: Path, prometheus: PrometheusServer, cluster: DevClusterProcess
) -> AsyncIterator[Services]:
    # The run's dev cluster: a save looks for the type's resource key among the nodes.
    settings = Settings(
        kubeconfig=cluster.kubeconfig,
        thermal_enabled=False,
        database_url=SecretStr(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"),
        prometheus_url=prometheus.url,
        alerts_target="file",
        alerts_rules_dir=rules_dir,
    )
    async with build_services(settings) as built:
        yield built


async def _groups(prometheus: PrometheusServer) -> dict[str, dict[str, Any]]:
    return {g["name"]: g for g in await prometheus.rules()}


async def _ready(prometheus: PrometheusServer) -> bool:
    async with httpx.AsyncClient(timeout=2) as client:
        return (await client.get(f"{prometheus.url}/-/ready")).status_code == 200


async def test_a_name_with_template_braces_loads_survives_a_restart_and_is_shown_as_typed(
    services: Services, prometheus: PrometheusServer, rules_dir: Path
) -> None:
    created = await services.catalog.create(
        ADMIN, DeviceTypeCreate.model_validate(lpu_type(name=TYPED)), force=True
    )
    assert created.device_type.name == TYPED
    converged = await services.alerts.sync.sync_now()
    assert converged is not None and converged.reloaded and converged.refused == ()
    assert services.alerts.sync.status.ok, services.alerts.sync.status
    assert "nufi-lpu" in await _groups(prometheus)

    # The same rule files at Prometheus' next start: it starts, and loads them.
    prometheus.restart()
    await prometheus.process.wait_ready_async(lambda: _ready(prometheus), 30, "Prometheus ready again")
    assert "nufi-lpu" in await until(lambda: _groups(prometheus), within=30, what="rule groups loaded")

    async def hot_alert() -> dict[str, Any] | None:
        return next(
            (
                a
                for a in await prometheus.alerts()
                if a["labels"].get("alertname") == "NuFiDeviceHot" and a["labels"].get("device_type") == "lpu"
            ),
            None,
        )

    alert = await until(hot_alert, within=60, what="NuFiDeviceHot pending or firing")
    summary = alert["annotations"]["summary"]
    assert summary.startswith(f"{TYPED} device 0 on lpu-node-1"), summary
    assert alert["annotations"]["summary_ko"].startswith("lpu-node-1의 HyperAccel {{ LPU 디바이스 0")


async def test_a_group_prometheus_would_refuse_is_kept_out_and_the_others_load(
    prometheus: PrometheusServer, rules_dir: Path
) -> None:
    device_type = DeviceType.model_validate(lpu_type(id="good") | {"kind": "custom"})
    good = rule_group(device_type, AlertThresholds(), 85.0)
    broken = copy.deepcopy(good.document) | {"name": "nufi-broken"}
    broken["rules"][0]["annotations"]["summary"] = "HyperAccel LPU {{ device {{ $labels.device }}"
    gateway = PrometheusGateway(prometheus.url)
    try:
        target = RulesFileTarget(rules_dir, gateway)
        converged = await target.converge([good, RuleGroup("broken", broken)])
    finally:
        await gateway.close()
    assert converged.written == ("good",) and [r.device_type for r in converged.refused] == ["broken"]
    # The reload went through: Prometheus took every file, the good group among them.
    assert converged.reloaded
    assert not (rules_dir / "nufi-broken.rules.yml").exists()
    groups = await _groups(prometheus)
    assert "nufi-good" in groups and "nufi-broken" not in groups
