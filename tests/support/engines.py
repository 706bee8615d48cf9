"""The metrics engine a run uses (`--metrics-engine`), and what differs between engines in their own words.

`make test` runs the whole suite on Prometheus, then the monitoring, check-metrics, range, dry-run and
thermal tests again on VictoriaMetrics. Tests that start a metrics server of their own call
`metrics_server`, so they follow the run's choice.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from nufi_sandbox.victoriametrics import VictoriaMetricsServer

ENGINES = ("prometheus", "victoriametrics")
# VictoriaMetrics as docs/install.md advises running it under NuFi: it hides no more of the newest
# samples than one scrape interval of the suite (1 s), and a series that stops answers for no longer
# than two. (Its default settings are tested in tests/integration/victoriametrics.)
VICTORIA_LATENCY_OFFSET_SECONDS = 1.0
VICTORIA_MAX_STALENESS_SECONDS = 2.0

# How each engine refuses to execute a many-to-many match: the errorType it writes, and words of its
# error that NuFi passes on to the reader (Prometheus names the cause; VictoriaMetrics' message begins
# with the query, so NuFi's shortened text keeps only its opening words).
EXECUTION_REFUSAL = {
    "Prometheus": ("execution", "many-to-many"),
    "VictoriaMetrics": ("422", "error when executing"),
}


def metrics_engine(config: pytest.Config) -> str:
    return str(config.getoption("metrics_engine"))


def metrics_server(
    config: pytest.Config,
    *,
    jobs: list[ScrapeJob] | None = None,
    scrape_interval: str = "1s",
    work_dir: Path | None = None,
) -> PrometheusServer:
    """A metrics server (not started) of the run's engine, scraping `jobs`."""
    if metrics_engine(config) == "victoriametrics":
        return VictoriaMetricsServer(
            jobs=jobs or [],
            scrape_interval=scrape_interval,
            work_dir=work_dir,
            latency_offset_seconds=VICTORIA_LATENCY_OFFSET_SECONDS,
            max_staleness_seconds=VICTORIA_MAX_STALENESS_SECONDS,
        )
    return PrometheusServer(jobs=jobs or [], scrape_interval=scrape_interval, work_dir=work_dir)
