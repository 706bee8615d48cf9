"""English: what the monitoring services say."""

_START_AGAIN = "start again without 'continue'"

TEXTS: dict[str, str] = {
    "monitoring.not_evaluated_yet": "monitoring has not evaluated this device type yet",
    "monitoring.series_unplaced": "{count} series lack the label '{node_label}' and were left out",
    "monitoring.series_unplaced_device": (
        "{count} series lack the label '{node_label}' or '{device_label}' and were left out"
    ),
    "monitoring.last_good": "{failure}; showing the last good snapshot, evaluated at {at}",
    # Paging a type's nodes.
    "monitoring.sort_unknown": "sort '{value}' is not one of {allowed}",
    "monitoring.order_unknown": "order '{value}' is not one of {allowed}",
    "monitoring.limit_not_number": (
        "limit '{value}' is not a whole number: give a whole number of nodes per page from 1 to {max}, "
        "or leave limit out"
    ),
    "monitoring.limit_out_of_range": (
        "limit '{value}' is out of range: give a whole number of nodes per page from 1 to {max}, "
        "or leave limit out"
    ),
    "monitoring.node_filter_too_long": (
        "node filter is {length} characters long; at most {max} are allowed (no node name is longer)"
    ),
    "monitoring.continue_malformed": (
        "the continue token is malformed: it is not one NuFi issued (tokens are opaque, pass them "
        f"back unchanged); {_START_AGAIN}"
    ),
    "monitoring.continue_mismatch": (
        "the continue token was issued for different node, sort, order or limit values: repeat them "
        f"as they were for the first page, or {_START_AGAIN}"
    ),
    "monitoring.continue_expired": (
        "The snapshot this 'continue' token pages through is no longer kept (a few refresh "
        "intervals); start again without 'continue'."
    ),
    # A range of history.
    "monitoring.metric_unknown": "metric '{value}' is not one of {allowed}",
    "monitoring.grouping_unknown": "by '{value}' is not one of {allowed}",
    "monitoring.top_unknown": "top '{value}' is not one of {allowed}",
    "monitoring.count_out_of_range": (
        "{field} {value} is not between {min} and {max}; omit it for the default"
    ),
    "monitoring.range_reversed": "start ({start}) must be before end ({end}); swap them or widen the range",
    "monitoring.range_too_long": (
        "the range from start to end is {span}, longer than the {max_span} allowed "
        "(NUFI_MONITORING_MAX_RANGE_SECONDS): start at {earliest} ({earliest_seconds}) or later, or move end"
    ),
    "monitoring.step_too_long": (
        "step {step} is longer than the {max_days} days allowed; use a step of at most {max_seconds} s, "
        "or leave step out to get at most {max_points} points"
    ),
    "monitoring.step_too_fine": (
        "step {step} is finer than the {min_ms} ms Prometheus evaluates at; use a step of at least "
        "{finest} s, or leave step out to get at most {max_points} points"
    ),
    "monitoring.step_too_many_points": (
        "step {step} gives more than {prometheus_max} points per series over this range of {span} "
        "(Prometheus' limit); use a step of at least {finest} s, or leave step out to get at most "
        "{max_points} points"
    ),
    "monitoring.span.days": "{count:g} {count:plural:day|days}",
    "monitoring.span.hours": "{count:g} {count:plural:hour|hours}",
    "monitoring.span.seconds": "{count:g} s",
    "monitoring.label_empty": "{field} is empty: give the {field} name, or leave {field} out",
    "monitoring.label_too_long": "{field} is {length} characters long; at most {max} are accepted",
    # Times and durations as a caller writes them.
    "monitoring.time_invalid": (
        "{field} '{value}' is not a time: give RFC 3339 with a time zone "
        "(e.g. 2026-05-01T12:00:00Z) or Unix seconds (e.g. 1777636800)"
    ),
    "monitoring.time_out_of_range": "{field} '{value}' is out of range",
    "monitoring.duration_invalid": (
        "{field} '{value}' is not a positive duration: give seconds (e.g. 30) or units (e.g. 30s, 5m, 1h)"
    ),
    "monitoring.datetime_invalid": "{field} '{value}' is not a valid date and time: {reason}",
}
