"""The rules kept written where Prometheus reads them: rule files a real Prometheus loads after NuFi
asks it to reload, PrometheusRule objects in a dev cluster serving the Prometheus Operator's kind; a
second replica changes nothing; a Prometheus that refuses reloads is reported and breaks nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from pydantic import SecretStr

from nufi.alerts.desired import StoredThresholds
from nufi.alerts.rules import GROUP_PREFIX
from nufi.alerts.thresholds import AlertThresholds
from nufi.auth import Principal
from nufi.config import Settings
from nufi.db import AuditRepository
from nufi.db.alerts import AlertThresholdsRepository
from nufi.db.types import utc_now
from nufi.services import Services, build_services
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.dev_cluster import dev_cluster
from support.polling import eventually

ADMIN = Principal(subject="a-1", username="alice", roles=frozenset({"nufi-admin"}))
OFFICIAL = {"nvidia-gpu", "furiosa-rngd", "rebellions-atom"}
PROMETHEUS_RULE_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "prometheusrules.monitoring.coreos.com"},
    "spec": {
        "group": "monitoring.coreos.com",
        "names": {"kind": "PrometheusRule", "plural": "prometheusrules", "singular": "prometheusrule"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        ],
    },
}


@pytest.fixture(scope="module")
def rules_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("alert-rules")


@pytest.fixture(scope="module")
def loading_prometheus(rules_dir: Path) -> Iterator[PrometheusServer]:
    server = PrometheusServer(rule_files=[f"{rules_dir}/*.yml"]).start()
    try:
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def replica(settings: Settings) -> AsyncIterator[Services]:
    async with build_services(settings) as services:
        yield services


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    return Settings(database_url=SecretStr(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"), **changes)


def _files(directory: Path) -> dict[str, tuple[int, str]]:
    """Each rules file by name, with when it was last written and what it says."""
    return {p.name: (p.stat().st_mtime_ns, p.read_text()) for p in directory.iterdir()}


def _synced(services: Services) -> None:
    assert services.alerts.sync.status.ok, services.alerts.sync.status


def _failed(services: Services) -> None:
    assert services.alerts.sync.status.problem is not None, services.alerts.sync.status


async def _reloads(prometheus: PrometheusServer) -> float:
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"{prometheus.url}/metrics")).text
    line = next(
        x for x in text.splitlines() if x.startswith("prometheus_config_last_reload_success_timestamp")
    )
    return float(line.split()[-1])


async def _loaded_groups(prometheus: PrometheusServer) -> dict[str, dict[str, Any]]:
    return {g["name"]: g for g in await prometheus.rules()}


async def test_rule_files_are_loaded_by_prometheus_follow_thresholds_and_a_second_replica_changes_nothing(
    tmp_path: Path, rules_dir: Path, loading_prometheus: PrometheusServer
) -> None:
    settings = _settings(
        tmp_path, prometheus_url=loading_prometheus.url, alerts_target="file", alerts_rules_dir=rules_dir
    )
    async with replica(settings) as first:
        await eventually(lambda: _synced(first), within=20)
        assert set(_files(rules_dir)) == {f"{GROUP_PREFIX}{t}.rules.yml" for t in OFFICIAL}
        loaded = await _loaded_groups(loading_prometheus)
        assert {f"{GROUP_PREFIX}{t}" for t in OFFICIAL} <= set(loaded)
        files = _files(rules_dir)
        reloaded_at = await _reloads(loading_prometheus)

        async with replica(settings) as second:
            converged = await second.alerts.sync.sync_now()
            assert converged is not None and not converged.changed and not converged.reloaded
        assert _files(rules_dir) == files
        assert await _reloads(loading_prometheus) == reloaded_at

        warmer = AlertThresholds.model_validate({"hot": {"celsius": 70.0, "for_seconds": 5}})
        entry = await first.alerts.put_thresholds(ADMIN, "nvidia-gpu", warmer)
        assert entry.source == "admin" and entry.hot_celsius == 70.0
        hot = next(
            r
            for r in (await _loaded_groups(loading_prometheus))["nufi-nvidia-gpu"]["rules"]
            if r["name"] == "NuFiDeviceHot"
        )
        assert ">= 70" in hot["query"] and hot["duration"] == 5
        # The same thresholds again: no revision, no audit record.
        again = await first.alerts.put_thresholds(ADMIN, "nvidia-gpu", warmer)
        assert again.revision == entry.revision == 1
        async with first.database.session() as session:
            records = await AuditRepository(session).list(target_kind="alert_thresholds")
        assert [(r.action, r.target_id, (r.after or {})["hot"]["celsius"]) for r in records] == [
            ("alert_thresholds.update", "nvidia-gpu", 70.0)
        ]

        # The thresholds of a type that is gone go with it; those written after the pass read the
        # catalog (a type registered meanwhile) stay.
        async with first.database.transaction() as session:
            stored = AlertThresholdsRepository(session)
            await stored.put("gone", {}, actor="alice", now=utc_now() - timedelta(minutes=5))
            await stored.put("new", {}, actor="alice", now=utc_now() + timedelta(minutes=5))
        await first.alerts.sync.sync_now()
        assert set(await StoredThresholds(first.database.sessions).all()) == {"nvidia-gpu", "new"}


async def test_a_prometheus_refusing_reloads_is_reported_and_breaks_nothing(tmp_path: Path) -> None:
    refusing = PrometheusServer(lifecycle=False).start()
    try:
        settings = _settings(
            tmp_path, prometheus_url=refusing.url, alerts_target="file", alerts_rules_dir=tmp_path / "rules"
        )
        async with replica(settings) as services:
            await eventually(lambda: _failed(services), within=20)
            status = services.alerts.sync.status
            assert status.configured and not status.ok
            assert status.problem is not None and status.problem.code == "prometheus.reload_failed"
            assert status.problem.params["status"] == 403
            # The files are written all the same; a config reloader would pick them up.
            assert len(list((tmp_path / "rules").glob("*.rules.yml"))) == len(OFFICIAL)
            report = await services.readiness.run()
            assert report.ready
            alert_rules = next(d for d in report.dependencies if d.name == "alert_rules")
            assert not alert_rules.ok and not alert_rules.required
            assert "--web.enable-lifecycle" in alert_rules.detail
            # The owed reload is asked again on the next pass, though nothing changed.
            assert await services.alerts.sync.sync_now() is None
    finally:
        refusing.stop()


@pytest.fixture(scope="module")
def operator_cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="dc-rules-") as cluster:
        cluster.install_crd(PROMETHEUS_RULE_CRD)
        yield cluster


async def test_where_prometheusrule_is_served_each_type_is_one_labelled_object_kept_once(
    tmp_path: Path, operator_cluster: DevClusterProcess
) -> None:
    base = f"{operator_cluster.url}/apis/monitoring.coreos.com/v1/namespaces/monitoring/prometheusrules"
    async with httpx.AsyncClient(headers=operator_cluster.headers) as kube:
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "monitoring"}}
        assert (
            await kube.post(f"{operator_cluster.url}/api/v1/namespaces", json=namespace)
        ).status_code == 201
        # One NuFi wrote for a type since deleted, and one of someone else's.
        for name, labels in (("nufi-gone", {"app.kubernetes.io/managed-by": "nufi"}), ("team-rules", {})):
            body = {
                "apiVersion": "monitoring.coreos.com/v1",
                "kind": "PrometheusRule",
                "metadata": {"name": name, "labels": labels},
                "spec": {"groups": []},
            }
            assert (await kube.post(base, json=body)).status_code == 201
        settings = _settings(
            tmp_path,
            kubeconfig=operator_cluster.kubeconfig,
            alerts_rule_namespace="monitoring",
            alerts_rule_labels={"release": "kube-prometheus-stack"},
        )
        async with replica(settings) as first:
            await eventually(lambda: _synced(first), within=20)
            assert first.alerts.sync.status.target == "prometheusrule"
            items = {i["metadata"]["name"]: i for i in (await kube.get(base)).json()["items"]}
            assert set(items) == {f"nufi-{t}" for t in OFFICIAL} | {"team-rules"}
            gpu = items["nufi-nvidia-gpu"]
            assert gpu["metadata"]["labels"] == {
                "release": "kube-prometheus-stack",
                "app.kubernetes.io/managed-by": "nufi",
                "nufi.io/device-type": "nvidia-gpu",
            }
            assert [g["name"] for g in gpu["spec"]["groups"]] == ["nufi-nvidia-gpu"]
            versions = {n: i["metadata"]["resourceVersion"] for n, i in items.items()}
            async with replica(settings) as second:
                converged = await second.alerts.sync.sync_now()
                assert converged is not None and not converged.changed
            after = {
                i["metadata"]["name"]: i["metadata"]["resourceVersion"]
                for i in (await kube.get(base)).json()["items"]
            }
            assert after == versions


async def test_a_configmap_holds_one_key_per_type_and_leaves_the_keys_of_others(
    tmp_path: Path, operator_cluster: DevClusterProcess
) -> None:
    url = f"{operator_cluster.url}/api/v1/namespaces/default/configmaps"
    kept = {"nufi-gone.rules.yml": "groups: []\n", "recording.yml": "groups: []\n"}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "prometheus-rules"}, "data": kept}
    async with httpx.AsyncClient(headers=operator_cluster.headers) as kube:
        assert (await kube.post(url, json=body)).status_code == 201
        settings = _settings(
            tmp_path,
            kubeconfig=operator_cluster.kubeconfig,
            alerts_target="configmap",
            alerts_configmap="prometheus-rules",
            alerts_rule_namespace="default",
        )
        async with replica(settings) as first:
            await eventually(lambda: _synced(first), within=20)
            found = (await kube.get(f"{url}/prometheus-rules")).json()
            expected = {f"{GROUP_PREFIX}{t}.rules.yml" for t in OFFICIAL} | {"recording.yml"}
            assert set(found["data"]) == expected
            rules = yaml.safe_load(found["data"]["nufi-nvidia-gpu.rules.yml"])
            assert [g["name"] for g in rules["groups"]] == ["nufi-nvidia-gpu"]
            async with replica(settings) as second:
                converged = await second.alerts.sync.sync_now()
                assert converged is not None and not converged.changed
            again = (await kube.get(f"{url}/prometheus-rules")).json()
            assert again["metadata"]["resourceVersion"] == found["metadata"]["resourceVersion"]
