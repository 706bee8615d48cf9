"""Handing the session's metrics engine from one test module to the next without stale series in between."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from support.polling import until

# Every series a job scraped, but VictoriaMetrics' own `scrape_timeout_seconds`: VictoriaMetrics 1.79
# writes staleness markers for all of a removed target's series except that one.
_SCRAPED = '{job!="",__name__!="scrape_timeout_seconds"}'


async def retire_jobs(
    prometheus: PrometheusServer, names: Collection[str] | None = None, within: float = 30.0
) -> None:
    """Drop scrape jobs `names` (default: every job) once the series they scraped are marked stale;
    other jobs stay as they are.

    Prometheus writes no staleness markers for a job removed from its config, so that job's series
    stay queryable for minutes. A target removed from a job that stays gets them about two scrape
    intervals after Prometheus notices (it batches target updates every 5 s).

    Only the targets change: a job whose settings change (honor_labels, say) is reloaded, and a
    reloaded scrape loop that is stopped before its first scrape writes no staleness markers at all.
    """
    retired = {job.name for job in prometheus.jobs} if names is None else set(names)
    if not retired:
        return
    emptied = [replace(job, targets=[]) if job.name in retired else job for job in prometheus.jobs]
    known = {job.name for job in emptied}
    prometheus.set_jobs([*emptied, *(ScrapeJob(name, []) for name in sorted(retired - known))])

    async def all_stale() -> bool:
        live = {row["metric"].get("job") for row in await prometheus.query(f"count by (job) ({_SCRAPED})")}
        assert not live & retired, f"series of jobs {sorted(live & retired)} are still live"
        return True

    await until(all_stale, within=within)
    prometheus.set_jobs([job for job in prometheus.jobs if job.name not in retired])
