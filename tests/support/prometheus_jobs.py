"""Handing the session's Prometheus from one test module to the next without stale series in between."""

from __future__ import annotations

from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.polling import until


async def retire_jobs(prometheus: PrometheusServer, within: float = 30.0) -> None:
    """Drop every scrape job once the series it scraped are marked stale.

    Prometheus writes no staleness markers for a job removed from its config, so that job's series
    stay queryable for minutes. A target removed from a job that stays gets them about two scrape
    intervals after Prometheus notices (it batches target updates every 5 s).
    """
    names = {job.name for job in prometheus.jobs}
    if not names:
        return
    prometheus.set_jobs([ScrapeJob(name, []) for name in sorted(names)])

    async def all_stale() -> bool:
        live = {row["metric"].get("job") for row in await prometheus.query('count by (job) ({job!=""})')}
        return not live & names

    await until(all_stale, within=within)
    prometheus.set_jobs([])
