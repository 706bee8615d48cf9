"""How the sandbox wires alerting: Prometheus loads the rule files NuFi writes into `alert-rules/`, sends
alerts to the sandbox's Alertmanager and scrapes NuFi's own /metrics; NuFi is told both places."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

import pytest
import yaml

from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob, render_config
from nufi_sandbox.sandbox import components
from nufi_sandbox.sandbox.layout import StateLayout
from nufi_sandbox.sandbox.orchestrator import Sandbox, SandboxOptions
from nufi_sandbox.sandbox.progress import StartupProgress


def test_rule_files_and_alertmanagers_are_rendered_only_when_given() -> None:
    job = ScrapeJob(name="lpu", targets=["127.0.0.1:9850"])
    plain = yaml.safe_load(render_config([job], "1s"))
    assert set(plain) == {"global", "scrape_configs"}
    config = yaml.safe_load(
        render_config([job], "1s", rule_files=["/state/alert-rules/*.yml"], alertmanagers=["127.0.0.1:9093"])
    )
    assert config["global"] == {"scrape_interval": "1s", "evaluation_interval": "1s"}
    assert config["rule_files"] == ["/state/alert-rules/*.yml"]
    assert config["alerting"] == {"alertmanagers": [{"static_configs": [{"targets": ["127.0.0.1:9093"]}]}]}
    assert config["scrape_configs"] == plain["scrape_configs"]


class _Recorded:
    """Stands in for ManagedProcess: remembers how NuFi would be started, starts nothing."""

    def __init__(
        self, name: str, argv: Sequence[str], *, log_dir: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.name, self.argv, self.env = name, list(argv), dict(env or {})

    def start(self) -> Self:
        return self


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    layout = StateLayout(tmp_path, tmp_path / "cluster", cluster_dir_is_temporary=False)
    options = SandboxOptions(port=18080, prometheus_binary=Path("/usr/bin/prometheus"))
    return Sandbox(layout, options, StartupProgress(), announce=lambda _: None)


def test_prometheus_loads_nufis_rules_alerts_the_alertmanager_and_scrapes_nufi(sandbox: Sandbox) -> None:
    prometheus, alertmanager = sandbox.prometheus, sandbox.alertmanager
    assert prometheus.rule_files == (f"{sandbox.layout.root / 'alert-rules'}/*.yml",)
    assert prometheus.alertmanagers == (alertmanager.address,)
    assert alertmanager.url == f"http://{alertmanager.address}"
    assert alertmanager.address.startswith("127.0.0.1:")
    (nufi,) = [job for job in prometheus.jobs if job.name == "nufi"]
    assert (nufi.targets, nufi.metrics_path) == (["127.0.0.1:18080"], "/metrics")
    assert prometheus.scrape_interval == "1s"


def test_nufi_is_told_where_to_write_rules_and_which_alertmanager(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(components, "ManagedProcess", _Recorded)
    # Prometheus picks its port when it starts, which this test does not.
    monkeypatch.setattr(PrometheusServer, "url", property(lambda _: "http://127.0.0.1:19090"))
    sandbox._start_nufi()
    started: Any = sandbox.nufi
    assert started.env["NUFI_ALERTS_RULES_DIR"] == str(sandbox.layout.root / "alert-rules")
    assert started.env["NUFI_ALERTMANAGER_URL"] == sandbox.alertmanager.url
    assert started.env["NUFI_PROMETHEUS_URL"] == "http://127.0.0.1:19090"
    state = sandbox.state().as_json()
    assert state["alertmanager_url"] == sandbox.alertmanager.url
    assert state["alert_rules_dir"] == str(sandbox.layout.root / "alert-rules")
