"""`bench.http_reads`: what an authenticated monitoring read costs NuFi, against the least any server
must spend on it, in one run.

The floor (`bench.http_reads.floor`) is a bare Starlette app on uvicorn in a process of its own that
verifies the caller's RS256 token with PyJWT against the issuer's JWKS on every request and answers the
same bytes NuFi answers. NuFi is `nufi serve` as the sandbox runs it. The readers
(`bench.http_reads.client`) run in a third process. For each page and each number of clients, floor
and NuFi are read in turn, `--runs` times, `--seconds` each.

Pages: the LPU page of the sandbox (`GET /api/v1/monitoring/lpu`, two nodes) and the 100-node page of
1,000 nodes x 8 GPUs (`GET /api/v1/monitoring/nvidia-gpu?limit=100`, the world of
`bench.common.gpu_world`). Then the charts: Prometheus range queries per chart view (the dashboard's
chart request) with 1 and with 50 viewers at once, counted from Prometheus' own
`prometheus_http_requests_total{handler="/api/v1/query_range"}`.
"""
