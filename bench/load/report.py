"""The report printed at the end of a run: requests per route, stream events and dashboard updates,
NuFi's RSS and CPU, the queries Prometheus answered beside what the refreshers are meant to ask,
and the errors."""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass

from bench.load.counters import by_handler, evaluation_cost, range_cost
from bench.load.plan import Plan
from bench.load.readings import RSS_SAMPLE_SECONDS, Readings
from bench.load.tally import RouteStats, Tally, percentile
from bench.load.world import REFRESH_SECONDS, TYPE_ID
from nufi.devices.spec import Metrics

ERROR_SAMPLES_SHOWN = 12


def report(plan: Plan, tally: Tally, readings: Readings, types: dict[str, Metrics], pid: int) -> None:
    report_routes(plan, tally, readings)
    report_updates(plan, tally)
    report_rss(plan, readings, pid)
    report_cpu(readings)
    report_queries(plan, tally, readings, types)
    report_errors(tally)


def report_routes(plan: Plan, tally: Tally, readings: Readings) -> None:
    tail = readings.window - plan.seconds
    print(
        f"\nload against the sandbox for {plan.seconds:g} s (+{tail:.1f} s for the requests in flight at "
        f"the deadline) on {os.cpu_count()} CPUs, shared by this benchmark, Chromium and the whole "
        f"sandbox (load average at the end {os.getloadavg()[0]:.1f}):\n"
        f"  {plan.snapshot_readers} REST snapshot readers (every {plan.poll_seconds:g} s, If-None-Match), "
        f"{plan.range_readers} range readers (every {plan.range_poll_seconds:g} s), "
        f"{plan.stream_readers} event streams, {plan.dashboard_sessions} dashboard sessions, "
        f"{plan.writers} admin writers (a write every {plan.write_pause:g} s each)\n"
    )
    print(
        f"  {'route':<62} {'requests':>8} {'ok':>7} {'of them 304':>11} {'lost race':>9} "
        f"{'errors':>6} {'p50 ms':>8} {'p99 ms':>9}"
    )
    for name, stats in tally.routes.items():
        p50 = f"{percentile(stats.latencies, 0.5) * 1000:8.1f}" if stats.latencies else f"{'-':>8}"
        p99 = f"{percentile(stats.latencies, 0.99) * 1000:9.1f}" if stats.latencies else f"{'-':>9}"
        print(
            f"  {name:<62} {stats.requests:>8,} {stats.ok:>7,} {stats.not_modified:>11,} {stats.raced:>9,} "
            f"{stats.errors:>6,} {p50} {p99}"
        )
    print(
        "  ok counts 304s (If-None-Match naming the current ETag). lost race: a 409 for a stale revision —\n"
        "  another writer saved the type between this writer's GET and PUT, and the catalog's optimistic\n"
        "  concurrency refused the save as designed (device types carry their revision in the body; the API\n"
        "  has no ETag / If-Match on them). Expected, not an error."
    )


def report_updates(plan: Plan, tally: Tally) -> None:
    """Stream events, dashboard frames, and the snapshots read that carried errors."""
    events = tally.stream_events
    per_stream, gaps = tally.events_per_stream, tally.longest_gaps
    if per_stream:
        print(
            f"\nstream events: {events['snapshot']:,} snapshots over {len(per_stream)} streams "
            f"({statistics.median(per_stream):.0f} per stream, min {min(per_stream)}, max {max(per_stream)}; "
            f"one per evaluation would be about {plan.seconds / REFRESH_SECONDS:.0f}), "
            f"{events['heartbeat']:,} heartbeats, {events['error']:,} error events, {events['end']:,} ends"
        )
        print(
            f"  longest time without a snapshot, per stream: median {statistics.median(gaps):.1f} s, "
            f"max {max(gaps):.1f} s (the refresh interval is {REFRESH_SECONDS:g} s)"
        )
    if tally.dashboard_frames:
        frames = tally.dashboard_frames
        print(
            f"dashboard updates: {sum(frames):,} websocket frames received by {len(frames)} live pages "
            f"during the run ({statistics.median(frames):.0f} per page, min {min(frames)})"
        )
    if tally.snapshots:
        sources = ", ".join(f"{n} from {source}" for source, n in tally.degraded_sources.most_common())
        print(
            f"snapshots carrying errors: {tally.degraded:,} of the {tally.snapshots:,} read (REST bodies and "
            f"stream events){f'; errors {sources}' if sources else ''}"
        )


def report_rss(plan: Plan, readings: Readings, pid: int) -> None:
    print(f"\nNuFi server process (pid {pid}) VmRSS:")
    rows = [("before the load (no dashboard session open)", readings.rss_before)]
    if plan.dashboard_sessions:
        rows.append(("when the clock started (dashboard sessions open)", readings.rss_window_start))
    rows.append((f"peak during the run (read every {RSS_SAMPLE_SECONDS:g} s)", readings.rss_peak))
    rows.append(("at the end of the run", readings.rss_end))
    for label, value in rows:
        print(f"  {label:<52} {_mib(value)}")
    if readings.rss_end is not None and readings.rss_before is not None:
        print(f"  {'change over the run':<52} {readings.rss_end - readings.rss_before:+8.1f} MiB")


def report_cpu(readings: Readings) -> None:
    before, after = readings.cpu_before, readings.cpu_after
    if before is None or after is None or readings.window <= 0:
        return

    def share(first: float | None, last: float | None) -> str:
        if first is None or last is None:
            return "?"
        return f"{last - first:.1f} s ({(last - first) / readings.window * 100:.0f} % of one CPU)"

    total = after.machine_total - before.machine_total
    busy = (after.machine_busy - before.machine_busy) / total * 100 if total else 0.0
    print(
        f"CPU during the run: NuFi {share(before.nufi, after.nufi)}, Prometheus "
        f"{share(before.prometheus, after.prometheus)}, this benchmark's own process "
        f"{share(before.benchmark, after.benchmark)}; the machine {busy:.0f} % busy"
    )


@dataclass(frozen=True)
class Expected:
    """The queries the run should have caused, from what it did: the refreshers' evaluations (one per
    type being read per refresh interval), the writers' saves and lost races, the range requests."""

    intervals: float
    # The types being read near the end, and the instant queries one evaluation of each asks.
    costs: dict[str, int]
    lpu_cost: int
    saves: int
    raced: int
    # One query per series family of each distinct chart; of each range request, were none shared.
    ranges: int
    unshared_ranges: int

    @property
    def per_interval(self) -> int:
        return sum(self.costs.values())

    @property
    def refresher(self) -> float:
        return self.per_interval * self.intervals

    @property
    def save_checks(self) -> int:
        return self.saves * 2 * self.lpu_cost


def expected(tally: Tally, readings: Readings, types: dict[str, Metrics]) -> Expected:
    read = sorted(readings.refreshing)
    lpu = types.get(TYPE_ID)
    ranges = unshared = 0
    if lpu is not None:
        ranges = sum(range_cost(lpu, metric) for metric, *_ in tally.range_windows)
        unshared = sum(count * range_cost(lpu, metric) for metric, count in tally.ranges.items())
    return Expected(
        intervals=readings.window / REFRESH_SECONDS,
        costs={t: evaluation_cost(types[t]) for t in read if t in types},
        lpu_cost=evaluation_cost(lpu) if lpu is not None else 0,
        saves=tally.saves,
        raced=sum(stats.raced for stats in tally.routes.values()),
        ranges=ranges,
        unshared_ranges=unshared,
    )


def report_queries(plan: Plan, tally: Tally, readings: Readings, types: dict[str, Metrics]) -> None:
    before, after = readings.prometheus_before, readings.prometheus_after
    instant = by_handler(after, "/api/v1/query") - by_handler(before, "/api/v1/query")
    ranged = by_handler(after, "/api/v1/query_range") - by_handler(before, "/api/v1/query_range")
    failed = {k: after[k] - before.get(k, 0) for k in sorted(after) if not k.endswith(" 200")}
    failed = {k: v for k, v in failed.items() if v}
    meant = expected(tally, readings, types)
    print(
        f"\nPrometheus queries during the run (its own prometheus_http_requests_total, from its /metrics; "
        f"{', '.join(f'{v} {k}' for k, v in failed.items()) or 'every one'} answered"
        f"{' otherwise than 200' if failed else ' 200'}):"
    )
    print(f"  instant (/api/v1/query)       {instant:>7,}")
    report_instant_meant(plan, meant)
    print(f"  ranges (/api/v1/query_range)  {ranged:>7,}")
    report_ranges_meant(tally, ranged, meant)
    report_per_reader(plan, tally, readings, instant, meant)


def report_ranges_meant(tally: Tally, ranged: int, meant: Expected) -> None:
    """Range queries beside the distinct charts read: every reader of one chart (metric, grouping and
    window, aligned to its step by the server) shares one query per series family."""
    charts, requests = len(tally.range_windows), sum(tally.ranges.values())
    print(
        f"    meant to: {meant.ranges:,}, one per series family of each distinct chart read ({charts:,} "
        f"charts — metric, grouping and window — from {requests:,} range requests answered)"
    )
    if charts:
        print(
            f"    range queries per distinct chart: {ranged / charts:.2f} measured, "
            f"{meant.ranges / charts:.2f} meant; {meant.unshared_ranges / charts:.2f} had every range "
            f"request asked Prometheus on its own ({meant.unshared_ranges:,} queries)"
        )


def report_instant_meant(plan: Plan, meant: Expected) -> None:
    per_interval, lpu_cost, saves, raced = meant.per_interval, meant.lpu_cost, meant.saves, meant.raced
    costs = ", ".join(f"{t} {cost}" for t, cost in meant.costs.items())
    print(
        f"    meant to: the refreshers {meant.refresher:>7,.0f} = {meant.intervals:.1f} refresh intervals x "
        f"{per_interval} queries per interval (one evaluation of each type being read: {costs or 'none'}"
        f"{'; the dashboard reads every type for its tabs' if plan.dashboard_sessions else ''})"
    )
    print(
        f"              + {meant.save_checks:,} for the writers' {saves} saves of {TYPE_ID} (the wizard's "
        f"checks again, 2 x {lpu_cost} each)\n"
        f"              + at most {saves * lpu_cost:,} for the first evaluation of each new revision (an "
        "edited type gets a refresher of its own)\n"
        f"              + at most {raced * 2 * lpu_cost:,} for the {raced} lost races (a save that loses at "
        "the database, after its checks, has asked them too)"
    )
    low = meant.refresher + meant.save_checks
    high = low + saves * lpu_cost + raced * 2 * lpu_cost
    print(
        f"              = {low:,.0f} to {high:,.0f}, give or take one interval ({per_interval}): "
        "evaluations fall on instants aligned to the interval"
    )


def report_per_reader(plan: Plan, tally: Tally, readings: Readings, instant: int, meant: Expected) -> None:
    readers = plan.snapshot_readers + plan.range_readers + plan.stream_readers + plan.dashboard_sessions
    reader_minutes = readers * readings.window / 60
    if reader_minutes <= 0:
        return
    snapshot_reads = tally.routes.get(f"GET /api/v1/monitoring/{TYPE_ID}", RouteStats()).requests
    stream_reads = tally.stream_events["snapshot"]
    print(
        f"  instant queries per reader-minute: {instant / reader_minutes:.2f} measured, "
        f"{meant.refresher / reader_minutes:.2f} from the refreshers alone ({readers} readers over "
        f"{readings.window / 60:.2f} min; the refreshers' share does not grow with readers)"
    )
    unshared = (snapshot_reads + stream_reads) * meant.lpu_cost
    print(
        f"  had every REST read and stream event evaluated on its own: {unshared:,} instant queries "
        f"({snapshot_reads:,} reads + {stream_reads:,} events x {meant.lpu_cost})"
    )


def report_errors(tally: Tally) -> None:
    samples_shown = [
        f"  {name}: {sample}" for name, stats in tally.routes.items() for sample in stats.samples
    ][:ERROR_SAMPLES_SHOWN]
    print(f"\nerrors: {tally.errors}")
    for line in samples_shown:
        print(line)


def _mib(value: float | None) -> str:
    return f"{value:8.1f} MiB" if value is not None else "       ? (not readable)"
