"""English: how late the metrics backend (Prometheus or an engine speaking its API) shows the data."""

_LATENCY_HINT = (
    "on VictoriaMetrics, set -search.latencyOffset no larger than the scrape interval; otherwise check "
    "that the exporters are scraped, and that NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS is their real "
    "scrape interval"
)

TEXTS: dict[str, str] = {
    "metrics_backend.not_configured": "not configured: set NUFI_PROMETHEUS_URL to read how late the data is",
    "metrics_backend.lagging": (
        "the newest sample of {device_type} was {lag_seconds:.1f} s old when it was read "
        f"(limit {{limit_seconds:g}} s): the metrics backend shows data late; {_LATENCY_HINT}"
    ),
    "metrics_backend.not_measured": "no device type has been read yet, so how late the data is is not known",
    "metrics_backend.in_time": (
        "the newest samples were at most {lag_seconds:.1f} s old when read (limit {limit_seconds:g} s)"
    ),
    "metrics_backend.late": (
        "the newest samples of {device_types} were up to {lag_seconds:.1f} s old when read "
        f"(limit {{limit_seconds:g}} s); {_LATENCY_HINT}"
    ),
    "metrics_backend.subquery_points": (
        "the subquery in '{expression}' makes {points} points per series at a {step_seconds:g} s step over "
        "the {span_hours:g} h NuFi asks for charts and dry runs, more than the {limit} an engine may "
        "allow (NUFI_PROMQL_MAX_POINTS_PER_SERIES, VictoriaMetrics' -search.maxPointsPerTimeseries): "
        "give the subquery a coarser step or a shorter range"
    ),
}
