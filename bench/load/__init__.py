"""`make load`: the one-command sandbox under monitoring readers, dashboard sessions and admin writers
at once, for `--seconds`.

Starts `python -m nufi_sandbox` in a state directory of its own (its own session, stopped by PID at
the end, also on Ctrl-C or an error), registers the LPU, and takes tokens for `admin` and `user` from
the dev identity provider (password grant, client `nufi-cli`). Then, concurrently:

- `--readers` monitoring readers as `user`, split between REST snapshot pollers
  (`GET /api/v1/monitoring/{type}?limit=25` every `--poll-seconds`, sending the last ETag back as
  `If-None-Match`, so an unchanged snapshot is a 304), range readers (`.../range`, one metric of the
  last hour every `--range-poll-seconds`; the route sends no ETag) and event streams (`.../stream`,
  held open for the whole run, events counted);
- `--dashboard-sessions` dashboard sessions: each a Chromium browser context of its own, signed in as
  `user` through the real OIDC login form before the clock starts, holding the live monitoring page
  of the type (its timer re-reads the shared snapshot every refresh interval and pushes the changes
  over its websocket; the frames it receives are counted);
- `--writers` admin writers, one write every `--write-pause` seconds each, in turn: a thermal policy
  (`PUT /api/v1/admin/thermal/policies/{type}`), the device type (`GET` it, `PUT` it back renamed with
  the revision it read: the catalog's optimistic concurrency, a stale revision is a 409), and a
  project created and deleted (`POST` / `DELETE /api/v1/admin/projects`).

It prints requests, lost races, errors and p50 / p99 latency per route (an error is a 5xx, a transport
error, or any status the route should not answer; a 409 from a stale revision is a lost race between
writers, which the API is designed to refuse, so it is counted apart and is no error), the first error
bodies, stream events and dashboard updates received, the NuFi process' VmRSS before the load, at its
peak and at the end, and the queries Prometheus answered during the run (its own
`prometheus_http_requests_total`, read from its /metrics) beside what the refreshers are meant to
issue: one evaluation per type being read per refresh interval, whatever the number of readers, and
the range queries per distinct chart (metric, grouping and the window the server answered, aligned to
its step): one per series family, however many range readers drew it. It exits 1 when there was an
error, never on time.

Usage: .venv/bin/python -m bench.load [--seconds 60] [--readers 200] [--dashboard-sessions 20]
[--writers 5] [...]; the sandbox and the sign-ins take 20 s to 2 min before the clock starts,
longer on a busy machine.
"""
