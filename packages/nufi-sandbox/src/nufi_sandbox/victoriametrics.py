"""A real VictoriaMetrics single-node server (Debian's `victoria-metrics`) on 127.0.0.1, scraping the same
jobs as the sandbox's Prometheus, so a test or the sandbox can run NuFi on either engine.

It is a PrometheusServer as far as its callers go: the same ScrapeJob list, `set_jobs` / `reload`,
`query`, `targets`, `wait_for_series` and `wait_for_target`, all of which VictoriaMetrics serves with
Prometheus' API. It evaluates no rules and sends no alerts (that is vmalert's job), so rule files and
Alertmanagers are not offered.

Its query settings are VictoriaMetrics' defaults unless given: notably `-search.latencyOffset` (30 s),
which hides the newest samples from queries, is what NuFi has to cope with on a default install.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import yaml

from nufi_sandbox.prometheus import PrometheusConfigError, PrometheusServer, ScrapeJob

VICTORIA_METRICS_CANDIDATES = ["/usr/bin/victoria-metrics"]
# VictoriaMetrics' retention is counted in whole days at least; a test run needs far less.
_RETENTION = "1d"
# VictoriaMetrics' own default of -search.latencyOffset.
_DEFAULT_LATENCY_OFFSET = 30.0


def _flag(name: str, seconds: float | None) -> list[str]:
    return [] if seconds is None else [f"{name}={round(seconds * 1000)}ms"]


def _all_requests(metrics: str) -> float:
    for line in metrics.splitlines():
        if line.startswith("vm_http_requests_all_total "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def render_scrape_config(jobs: Sequence[ScrapeJob], scrape_interval: str) -> str:
    """The `-promscrape.config` file: Prometheus' scrape_configs with only the global settings
    VictoriaMetrics knows (it refuses unknown fields, such as `evaluation_interval`)."""
    config: dict[str, Any] = {
        "global": {"scrape_interval": scrape_interval},
        "scrape_configs": [job.to_config() for job in jobs],
    }
    return yaml.safe_dump(config, sort_keys=False)


class VictoriaMetricsServer(PrometheusServer):
    """VictoriaMetrics with its own storage dir and port; jobs can be replaced while it runs.

    `latency_offset_seconds` sets `-search.latencyOffset` and `max_staleness_seconds`
    `-search.maxStalenessInterval` (how long a series that stopped, or turned NaN, still answers with
    its previous value); None keeps VictoriaMetrics' default.
    """

    name = "VictoriaMetrics"
    process_name = "victoria-metrics"
    binary_name = "victoria-metrics"
    candidates = VICTORIA_METRICS_CANDIDATES
    package = "victoria-metrics"
    config_file = "scrape.yml"
    _requests_counter = "vm_http_requests_total"
    _requests_label = "path"

    def __init__(
        self,
        *,
        jobs: Sequence[ScrapeJob] = (),
        scrape_interval: str = "1s",
        work_dir: Path | None = None,
        binary: Path | None = None,
        startup_timeout: float = 30.0,
        latency_offset_seconds: float | None = None,
        max_staleness_seconds: float | None = None,
    ) -> None:
        self.latency_offset_seconds = latency_offset_seconds
        self.max_staleness_seconds = max_staleness_seconds
        super().__init__(
            jobs=jobs,
            scrape_interval=scrape_interval,
            work_dir=work_dir,
            binary=binary,
            startup_timeout=startup_timeout,
        )

    @property
    def hides_newest_seconds(self) -> float:
        return _DEFAULT_LATENCY_OFFSET if self.latency_offset_seconds is None else self.latency_offset_seconds

    def _arguments(self) -> list[str]:
        return [
            f"-promscrape.config={self.config_path}",
            f"-storageDataPath={self._dir() / 'data'}",
            f"-retentionPeriod={_RETENTION}",
            f"-httpListenAddr={self.address}",
            *_flag("-search.latencyOffset", self.latency_offset_seconds),
            *_flag("-search.maxStalenessInterval", self.max_staleness_seconds),
        ]

    async def requests_served(self, path: str) -> float:
        """As PrometheusServer's. VictoriaMetrics answers /metrics from a copy it writes again at most
        once a second, so its count of every request it served (which counts these reads too) is
        read until it moves: that copy was written after this call began."""
        first = await self._own_metrics()
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            text = await self._own_metrics()
            if _all_requests(text) > _all_requests(first):
                return self._requests_in(text, path)
        raise TimeoutError(f"{self.name}'s /metrics at {self.url} was not written again within 10 s")

    def _render(self, jobs: Sequence[ScrapeJob]) -> str:
        return render_scrape_config(jobs, self.scrape_interval)

    def _is_ready(self) -> bool:
        # /-/ready answers 200 as soon as the HTTP server listens; /health likewise, but is the
        # endpoint VictoriaMetrics documents for probes, so it is the one asked.
        return httpx.get(f"{self.url}/health", timeout=2.0).status_code == 200

    def reload(self) -> None:
        """Read the scrape config again. VictoriaMetrics answers 204 and applies it in the background
        (as on SIGHUP), logging a refused config and keeping the previous one, so callers wait for the
        targets they expect rather than trusting the answer."""
        response = httpx.post(f"{self.url}/-/reload", timeout=30.0)
        if response.status_code not in (200, 204):
            raise PrometheusConfigError(
                f"VictoriaMetrics refused the reload ({response.status_code}): {response.text.strip()}"
            )

    async def rules(self) -> list[dict[str, Any]]:
        raise NotImplementedError("VictoriaMetrics single-node evaluates no rules (vmalert does)")

    async def alerts(self) -> list[dict[str, Any]]:
        raise NotImplementedError("VictoriaMetrics single-node sends no alerts (vmalert does)")
