"""Monitoring snapshots of 1,000 nodes x 8 GPUs: cold, warm, shared, and over a long run.

Monitoring keeps one background refresher per device type in each replica: it evaluates the type once
per refresh interval (a catalog read, one reduced instant query per quantity, the cluster state, the
join) and every reader gets the latest evaluation. This benchmark checks what that design promises,
in one run, against its own world: a Prometheus scraping every 15 s, the mock exporter in its DCGM
profile simulating 1,000 nodes with 8 GPUs each, a dev cluster with the same nodes and a few hundred
pods holding GPUs, and the dev identity provider. It prints, each on one line:

1. Cold snapshot against the floor: a read of the NVIDIA preset from a fresh `MonitoringService`
   (nothing evaluated yet, so the read waits for a full evaluation, the cluster state read from the
   watch-fed cache as the server does), against the floor: the preset's bare expressions
   (`metrics.queries()`, unreduced) sent at once with httpx and JSON-decoded, nothing else. The two
   alternate over several runs, a new service each run; medians and the ratio (goal <= 1.3x). For
   reference: the reduced queries NuFi sends, alone, and the cold snapshot with the cluster listed
   directly instead of from the cache.
2. Warm reads with 1 and with 200 concurrent readers for `--warm-seconds` each, against a running
   service (background loop on): p50/p99 per read and reads/s (goal p99 <= 50 ms); first in process
   (`service.snapshot(...)`), then over HTTP: the app from `nufi.api.create_app` with its lifespan,
   served by uvicorn on 127.0.0.1 in this process, readers using httpx with a bearer token from the
   dev identity provider and asking for the first page (100 nodes) of the snapshot. Readers, server
   and refresher share one event loop, so HTTP latencies include the clients' own work. For reference,
   one HTTP reader asking for the whole snapshot (every node) per request.
3. Prometheus queries per refresh interval in each warm phase: `prometheus_http_requests_total
   {handler="/api/v1/query"}` from Prometheus' own /metrics, summed, before and after the phase,
   divided by the refresh instants the phase spans (goal: the same with 1 and 200 readers, 5 for the
   NVIDIA preset); with NuFi's own count of evaluations (`service.stats()` in process,
   `nufi_monitoring_evaluations_total` from the app's /metrics over HTTP). Only one service exists
   during a phase, and phases start and end clear of an evaluation in flight.
4. RSS soak: this process' VmRSS (server, refresher and readers) after the first minute of 200 HTTP
   readers and after `--soak-seconds` of them; the growth in MiB and %. `--soak-seconds 0` skips it.

It never fails on time. Run: `.venv/bin/python -m bench.monitoring_snapshot [--warm-seconds N]
[--soak-seconds N]` (defaults 30 and 600); startup takes about two minutes.
"""
