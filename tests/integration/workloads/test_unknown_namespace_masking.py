"""A type that maps its exporter's `pod` label but not `namespace`: the pod's namespace is unknown, so a
user who is not a member of every project sees "another project" in monitoring (pages and the stream)
and in the alerts, while an admin sees the name. And only the admin is told where the alert rules are
written and where Alertmanager is, whose own API shows every alert unmasked.

NuFi runs over the world's cluster and identity provider, with a Prometheus of this module's own that
scrapes an exporter naming a pod `secret-chat-0` (one LPU at 999 °C, so the hot rule is pending at
once) and loads the rule files NuFi writes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi.api import create_app
from nufi.auth import Principal
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT
from nufi.monitoring.snapshots.snapshot import Snapshot
from nufi.services import Services
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.asgi import serving
from support.exporter import serving_text
from support.lpu_type import lpu_type
from support.polling import until
from support.world import World

SECRET = "secret-chat-0"
ALERTMANAGER = "http://127.0.0.1:9"
SERIES = f'node="lpu-node-1",device="0",pod="{SECRET}"'
EXPOSITION = "".join(
    f"{metric}{{{SERIES}}} {value}\n"
    for metric, value in (
        ("lpu_temperature_celsius", 999),
        ("lpu_utilization_percent", 50),
        ("lpu_memory_used_bytes", 1),
        ("lpu_memory_total_bytes", 100),
    )
)
USER = Principal(subject="user", username="user", roles=frozenset())


@pytest.fixture(scope="module")
def exporter() -> Iterator[str]:
    with serving_text(EXPOSITION, name="pod-without-namespace") as address:
        yield address


@pytest.fixture(scope="module")
def rules_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("masking-rules")


@pytest.fixture(scope="module")
def own_prometheus(exporter: str, rules_dir: Path) -> Iterator[PrometheusServer]:
    server = PrometheusServer(jobs=[ScrapeJob("lpu", [exporter])], rule_files=[f"{rules_dir}/*.yml"]).start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Served:
    client: httpx.AsyncClient
    services: Services


@pytest.fixture
async def served(
    world: World, own_prometheus: PrometheusServer, rules_dir: Path, tmp_path: Path, foreign_project: str
) -> AsyncIterator[Served]:
    # `foreign_project` exists: `user` may not see some project, so what may be its pods is hidden.
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'masking.db'}").model_copy(
        update={
            "prometheus_url": own_prometheus.url,
            "alerts_target": "file",
            "alerts_rules_dir": rules_dir,
            "alertmanager_url": ALERTMANAGER,
        }
    )
    app = create_app(settings)
    async with serving(app, client_timeout=30) as client:
        labels = {"node": "node", "device": "device", "pod": "pod"}
        registered = await client.post(
            "/api/v1/admin/devices",
            json=lpu_type(labels=labels),
            params={"force": "true"},
            headers=world.admin,
        )
        assert registered.status_code == 201, registered.text
        yield Served(client, app.state.services)


def _device_pods(body: dict[str, Any]) -> set[str | None]:
    return {d["pod"] for node in body["nodes"] for d in node["devices"]}


async def test_a_pod_of_unknown_namespace_is_another_project_to_a_user_and_named_to_an_admin(
    served: Served, world: World
) -> None:
    nufi = served.client

    async def admin_sees_it() -> dict[str, Any] | None:
        answer = await nufi.get("/api/v1/monitoring/lpu", headers=world.admin)
        assert answer.status_code == 200, answer.text
        return answer.json() if SECRET in _device_pods(answer.json()) else None

    await until(admin_sees_it, within=60, every=0.5, what="the admin seeing the exporter's pod")
    as_user = await nufi.get("/api/v1/monitoring/lpu", headers=world.user)
    assert as_user.status_code == 200, as_user.text
    assert _device_pods(as_user.json()) == {ANOTHER_PROJECT}
    assert SECRET not in as_user.text

    stream = served.services.monitoring.stream(USER, "lpu", heartbeat_seconds=0.5)
    try:
        streamed = await anext(item async for item in stream if isinstance(item, Snapshot))
    finally:
        await stream.aclose()
    assert {d.pod for n in streamed.nodes for d in n.devices} == {ANOTHER_PROJECT}

    async def admin_alert() -> dict[str, Any] | None:
        answer = await nufi.get("/api/v1/alerts", headers=world.admin)
        assert answer.status_code == 200, answer.text
        return next((a for a in answer.json()["items"] if a["pod"] == SECRET), None)

    alert = await until(admin_alert, within=60, every=0.5, what="the hot rule pending for the pod")
    assert alert["namespace"] is None
    alerts = await nufi.get("/api/v1/alerts", headers=world.user)
    assert alerts.status_code == 200, alerts.text
    hot = [a for a in alerts.json()["items"] if a["device_type"] == "lpu" and a["rule"] == "hot"]
    assert hot and {a["pod"] for a in hot} == {ANOTHER_PROJECT}
    assert SECRET not in alerts.text


async def test_only_admins_are_told_where_the_rules_are_and_where_alertmanager_is(
    served: Served, world: World, rules_dir: Path
) -> None:
    nufi = served.client

    async def written() -> dict[str, Any] | None:
        answer = await nufi.get("/api/v1/alerts", headers=world.admin)
        assert answer.status_code == 200, answer.text
        return answer.json() if answer.json()["rules"]["ok"] else None

    as_admin = await until(written, within=30, every=0.5, what="the rules written")
    assert as_admin["alertmanager_url"] == ALERTMANAGER
    assert as_admin["rules"]["location"] == str(rules_dir)

    as_user = (await nufi.get("/api/v1/alerts", headers=world.user)).json()
    assert as_user["alertmanager_url"] is None
    assert as_user["rules"]["ok"] and as_user["rules"]["target"] == "file"
    assert as_user["rules"]["location"] == "" and str(rules_dir) not in str(as_user)
