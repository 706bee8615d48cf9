"""The readiness aggregator and the gateways' "not configured" answers."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from nufi.cluster import ClusterGateway, KubeSource
from nufi.config import Settings
from nufi.health import DependencyStatus, Readiness
from nufi.prom import PrometheusGateway, PrometheusUnavailable

pytestmark = pytest.mark.usefixtures("clean_env")


@dataclass
class FakeCheck:
    name: str
    ok: bool = True
    configured: bool = True
    delay: float = 0.0
    error: Exception | None = None

    async def check(self) -> DependencyStatus:
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return DependencyStatus(name=self.name, ok=self.ok, configured=self.configured, detail="checked")


async def test_ready_when_every_configured_dependency_is_ok() -> None:
    report = await Readiness([FakeCheck("a"), FakeCheck("b")]).run()
    assert report.ready
    assert [d.name for d in report.dependencies] == ["a", "b"]
    assert all(d.latency_ms is not None for d in report.dependencies)


async def test_one_failing_configured_dependency_makes_it_unready() -> None:
    report = await Readiness([FakeCheck("a"), FakeCheck("b", ok=False)]).run()
    assert not report.ready
    assert [d.name for d in report.failing] == ["b"]


async def test_unconfigured_dependencies_are_listed_but_not_required() -> None:
    report = await Readiness([FakeCheck("a"), FakeCheck("b", ok=False, configured=False)]).run()
    assert report.ready
    assert report.failing == []
    assert {d.name: d.configured for d in report.dependencies} == {"a": True, "b": False}


async def test_no_checks_means_ready() -> None:
    assert (await Readiness().run()).ready


async def test_slow_check_times_out_and_checks_run_concurrently() -> None:
    checks = [FakeCheck("slow", delay=5.0), FakeCheck("a", delay=0.2), FakeCheck("b", delay=0.2)]
    started = time.perf_counter()
    report = await Readiness(checks, timeout_seconds=0.5).run()
    elapsed = time.perf_counter() - started
    # Sequential checks would need at least 0.9 s.
    assert elapsed < 0.85
    slow = report.dependencies[0]
    assert not slow.ok
    assert "did not answer within 0.5 s" in slow.detail
    assert not report.ready


async def test_a_raising_check_is_reported_not_propagated() -> None:
    report = await Readiness([FakeCheck("a", error=RuntimeError("socket exploded")), FakeCheck("b")]).run()
    broken = report.dependencies[0]
    assert not broken.ok
    assert "RuntimeError: socket exploded" in broken.detail
    assert report.dependencies[1].ok


async def test_a_reported_dependency_failing_is_listed_but_leaves_nufi_ready() -> None:
    report = await Readiness([FakeCheck("database")], reported=[FakeCheck("prometheus", ok=False)]).run()
    assert report.ready
    assert report.failing == []
    prometheus = report.dependencies[1]
    assert (prometheus.name, prometheus.ok, prometheus.required) == ("prometheus", False, False)
    assert report.dependencies[0].required


async def test_a_reported_dependency_that_times_out_or_raises_still_leaves_nufi_ready() -> None:
    reported = [FakeCheck("slow", delay=5.0), FakeCheck("broken", error=RuntimeError("socket exploded"))]
    report = await Readiness([FakeCheck("database")], reported=reported, timeout_seconds=0.2).run()
    assert report.ready
    assert {d.name: (d.ok, d.required) for d in report.dependencies} == {
        "database": (True, True),
        "slow": (False, False),
        "broken": (False, False),
    }


async def test_a_required_dependency_failing_makes_it_unready_whatever_is_reported() -> None:
    report = await Readiness([FakeCheck("database", ok=False)], reported=[FakeCheck("prometheus")]).run()
    assert not report.ready
    assert [d.name for d in report.failing] == ["database"]


def test_duplicate_names_are_refused() -> None:
    readiness = Readiness([FakeCheck("a")])
    with pytest.raises(ValueError, match="'a' is already registered"):
        readiness.register(FakeCheck("a"))


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Readiness(timeout_seconds=0)


def test_kube_source_prefers_kubeconfig_then_in_cluster() -> None:
    with_file = Settings(kubeconfig=Path("/etc/kube/config"), kube_context="ctx")
    source = KubeSource.from_settings(with_file, environ={"KUBERNETES_SERVICE_HOST": "10.0.0.1"})
    assert source is not None
    assert source.kind == "kubeconfig"
    assert source.describe() == "kubeconfig '/etc/kube/config' (context 'ctx')"
    in_pod = KubeSource.from_settings(Settings(), environ={"KUBERNETES_SERVICE_HOST": "10.0.0.1"})
    assert in_pod is not None
    assert in_pod.kind == "in-cluster"
    assert KubeSource.from_settings(Settings(), environ={}) is None


async def test_unconfigured_gateways_say_how_to_configure_them() -> None:
    cluster = ClusterGateway.from_settings(Settings(), environ={})
    prometheus = PrometheusGateway.from_settings(Settings())
    assert not cluster.configured
    assert not prometheus.configured
    cluster_status = await cluster.check()
    prometheus_status = await prometheus.check()
    assert (cluster_status.ok, cluster_status.configured) == (False, False)
    assert "NUFI_KUBECONFIG" in cluster_status.detail
    assert (prometheus_status.ok, prometheus_status.configured) == (False, False)
    assert "NUFI_PROMETHEUS_URL" in prometheus_status.detail
    with pytest.raises(PrometheusUnavailable):
        await prometheus.query("up")
    await cluster.close()
    await prometheus.close()
