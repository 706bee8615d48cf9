"""A real Prometheus server (the Debian binary) on 127.0.0.1, for the sandbox and the integration tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from nufi_sandbox.debian_server import DebianServer

PROMETHEUS_CANDIDATES = ["/usr/bin/prometheus"]


class PrometheusConfigError(RuntimeError):
    """Prometheus refused a configuration; it keeps running with the previous one."""


class PrometheusQueryError(RuntimeError):
    """Prometheus answered a query with an error (bad PromQL, not ready, ...)."""


@dataclass
class ScrapeJob:
    """One scrape_config with static targets ("host:port")."""

    name: str
    targets: list[str]
    honor_labels: bool = False
    metrics_path: str = "/metrics"
    labels: dict[str, str] = field(default_factory=dict)

    def to_config(self) -> dict[str, Any]:
        static: dict[str, Any] = {"targets": list(self.targets)}
        if self.labels:
            static["labels"] = dict(self.labels)
        return {
            "job_name": self.name,
            "honor_labels": self.honor_labels,
            "metrics_path": self.metrics_path,
            "static_configs": [static],
        }


def render_config(
    jobs: Sequence[ScrapeJob],
    scrape_interval: str,
    *,
    rule_files: Sequence[str] = (),
    alertmanagers: Sequence[str] = (),
) -> str:
    """`rule_files` are paths or globs; `alertmanagers` are "host:port" targets. Rules are evaluated
    as often as targets are scraped."""
    config: dict[str, Any] = {
        "global": {"scrape_interval": scrape_interval, "evaluation_interval": scrape_interval},
    }
    if rule_files:
        config["rule_files"] = list(rule_files)
    if alertmanagers:
        config["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": list(alertmanagers)}]}]}
    config["scrape_configs"] = [job.to_config() for job in jobs]
    return yaml.safe_dump(config, sort_keys=False)


class PrometheusServer(DebianServer):
    """Prometheus with its own config, data dir and port; jobs can be replaced while it runs.

    The first sample of a new target shows up a few seconds after start or reload, because
    Prometheus hands discovered targets to its scrapers in batches every 5 s: start it once and
    wait with wait_for_series / wait_for_target rather than sleeping.

    `rule_files` (paths or globs) are loaded at start and at every reload (POST /-/reload, which
    --web.enable-lifecycle allows); alerts go to the `alertmanagers` ("host:port").
    """

    name = "Prometheus"
    process_name = "prometheus"
    binary_name = "prometheus"
    candidates = PROMETHEUS_CANDIDATES
    package = "prometheus"
    config_file = "prometheus.yml"

    def __init__(
        self,
        *,
        jobs: Sequence[ScrapeJob] = (),
        scrape_interval: str = "1s",
        retention: str = "2h",
        work_dir: Path | None = None,
        binary: Path | None = None,
        startup_timeout: float = 30.0,
        rule_files: Sequence[str] = (),
        alertmanagers: Sequence[str] = (),
        lifecycle: bool = True,
    ) -> None:
        self._jobs = list(jobs)
        # Without it, POST /-/reload is refused (403), as on a Prometheus started without the flag.
        self._lifecycle = lifecycle
        self.rule_files = tuple(rule_files)
        self.alertmanagers = tuple(alertmanagers)
        self.scrape_interval = scrape_interval
        self._retention = retention
        super().__init__(work_dir=work_dir, binary=binary, startup_timeout=startup_timeout)

    @property
    def jobs(self) -> list[ScrapeJob]:
        return list(self._jobs)

    def _config_text(self) -> str:
        return self._render(self._jobs)

    def _arguments(self) -> list[str]:
        return [
            f"--config.file={self.config_path}",
            f"--storage.tsdb.path={self._dir() / 'data'}",
            f"--storage.tsdb.retention.time={self._retention}",
            f"--web.listen-address={self.address}",
            *(["--web.enable-lifecycle"] if self._lifecycle else []),
            # Firing alerts are sent again every evaluation (default: every minute), so one that
            # fired before Alertmanager was discovered, or restarted, reaches it at once.
            f"--rules.alert.resend-delay={self.scrape_interval}",
        ]

    def set_jobs(self, jobs: Sequence[ScrapeJob]) -> None:
        """Replace every scrape job and reload; on refusal the previous config stays in force."""
        previous = self.config_path.read_text()
        self.config_path.write_text(self._render(jobs))
        try:
            self.reload()
        except PrometheusConfigError:
            self.config_path.write_text(previous)
            raise
        self._jobs = list(jobs)

    def reload(self) -> None:
        """Read the config and the rule files again; PrometheusConfigError when Prometheus refuses them
        (it keeps the previous ones then)."""
        response = httpx.post(f"{self.url}/-/reload", timeout=30.0)
        if response.status_code != 200:
            raise PrometheusConfigError(
                f"Prometheus refused the reload ({response.status_code}): {response.text.strip()}"
            )

    async def rules(self) -> list[dict[str, Any]]:
        """The loaded rule groups (/api/v1/rules: each has "name", "file" and "rules")."""
        groups: list[dict[str, Any]] = (await self._api("/api/v1/rules"))["groups"]
        return groups

    async def alerts(self) -> list[dict[str, Any]]:
        """Pending and firing alerts (/api/v1/alerts: each has "labels", "state", "activeAt", ...)."""
        alerts: list[dict[str, Any]] = (await self._api("/api/v1/alerts"))["alerts"]
        return alerts

    async def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant-vector result of `promql` now (each item has "metric" and "value")."""
        async with httpx.AsyncClient(base_url=self.url, timeout=10.0) as client:
            response = await client.get("/api/v1/query", params={"query": promql})
        try:
            body = response.json()
        except ValueError:
            body = {"error": response.text.strip()}
        if response.status_code != 200 or body.get("status") != "success":
            raise PrometheusQueryError(
                f"query {promql!r} failed ({response.status_code}): {body.get('error')}"
            )
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    @property
    def hides_newest_seconds(self) -> float:
        """How much of the newest data its queries leave out: none for Prometheus (VictoriaMetrics'
        `-search.latencyOffset`)."""
        return 0.0

    # The counter of its own /metrics that counts the HTTP requests it served, and its path label.
    _requests_counter = "prometheus_http_requests_total"
    _requests_label = "handler"

    async def requests_served(self, path: str) -> float:
        """How many requests it has served on the API `path` (e.g. "/api/v1/query"), from its own
        /metrics: what a test counts to see how often NuFi asked."""
        return self._requests_in(await self._own_metrics(), path)

    async def _own_metrics(self) -> str:
        async with httpx.AsyncClient(timeout=5.0) as client:
            return (await client.get(f"{self.url}/metrics")).text

    def _requests_in(self, text: str, path: str) -> float:
        prefix = f"{self._requests_counter}{{"
        label = f'{self._requests_label}="{path}"'
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith(prefix) and label in line
        )

    async def wait_for_series(
        self,
        query: str,
        timeout: float = 30.0,  # noqa: ASYNC109 - on expiry the error reports the targets' state
    ) -> list[dict[str, Any]]:
        """Poll `query` until it returns at least one series; a malformed query fails at once."""
        deadline = time.monotonic() + timeout
        while True:
            result = await self.query(query)
            if result:
                return result
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"no series for {query!r} within {timeout:g}s; targets: {await self._target_summary()}"
                )
            await asyncio.sleep(0.25)

    async def targets(self) -> list[dict[str, Any]]:
        """Active scrape targets as /api/v1/targets reports them (labels, scrapePool, health, lastError)."""
        active: list[dict[str, Any]] = (await self._api("/api/v1/targets", state="active"))["activeTargets"]
        return active

    async def _api(self, path: str, **params: str) -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=self.url, timeout=10.0) as client:
            response = await client.get(path, params=params)
        response.raise_for_status()
        data: dict[str, Any] = response.json()["data"]
        return data

    async def wait_for_target(
        self,
        job: str,
        health: str = "up",
        timeout: float = 30.0,  # noqa: ASYNC109 - on expiry the error reports the targets' state
    ) -> dict[str, Any]:
        """The first target of `job` once its health is `health` ("up", "down")."""
        deadline = time.monotonic() + timeout
        while True:
            for target in await self.targets():
                if target["labels"].get("job") == job and target["health"] == health:
                    return target
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"no target of job {job!r} was {health!r} within {timeout:g}s; "
                    f"targets: {await self._target_summary()}"
                )
            await asyncio.sleep(0.25)

    def _render(self, jobs: Sequence[ScrapeJob]) -> str:
        return render_config(
            jobs, self.scrape_interval, rule_files=self.rule_files, alertmanagers=self.alertmanagers
        )

    async def _target_summary(self) -> str:
        try:
            targets = await self.targets()
        except httpx.HTTPError as exc:
            return f"unavailable ({exc!r})"
        return (
            ", ".join(
                f"{t['labels'].get('job')}@{t['labels'].get('instance')}={t['health']}"
                + (f" ({t['lastError']})" if t.get("lastError") else "")
                for t in targets
            )
            or "none"
        )
