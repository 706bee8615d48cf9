"""`nufi-sandbox --metrics victoriametrics`: VictoriaMetrics scrapes what Prometheus would, with its
latency offset at the scrape interval as docs/install.md advises, and NuFi reads it."""

from __future__ import annotations

from pathlib import Path

from nufi_sandbox.__main__ import parse_args
from nufi_sandbox.prometheus import PrometheusServer
from nufi_sandbox.sandbox.layout import StateLayout
from nufi_sandbox.sandbox.orchestrator import Sandbox, SandboxOptions
from nufi_sandbox.sandbox.progress import StartupProgress
from nufi_sandbox.victoriametrics import VictoriaMetricsServer


def sandbox(tmp_path: Path, **options: object) -> Sandbox:
    layout = StateLayout(tmp_path, tmp_path / "cluster", cluster_dir_is_temporary=False)
    chosen = SandboxOptions(port=18080, prometheus_binary=Path("/usr/bin/prometheus"), **options)  # type: ignore[arg-type]
    return Sandbox(layout, chosen, StartupProgress(), announce=lambda _: None)


def test_victoriametrics_scrapes_the_same_jobs_late_by_one_scrape_interval_at_most(tmp_path: Path) -> None:
    plain = sandbox(tmp_path / "p").prometheus
    engine = sandbox(tmp_path / "v", metrics="victoriametrics").prometheus
    assert type(plain) is PrometheusServer and isinstance(engine, VictoriaMetricsServer)
    assert [(j.name, j.metrics_path) for j in engine.jobs] == [(j.name, j.metrics_path) for j in plain.jobs]
    assert engine.scrape_interval == "1s" and engine.latency_offset_seconds == 1
    assert engine.max_staleness_seconds == 2


def test_the_flag_chooses_the_engine() -> None:
    assert parse_args([]).metrics == "prometheus"
    assert parse_args(["--metrics", "victoriametrics"]).metrics == "victoriametrics"
