"""English: what the devices services say: the catalog of device types, its checks, PromQL and Prometheus."""

TEXTS: dict[str, str] = {
    # --- Quantities a device reports ---
    "metric.utilization": "utilization",
    "metric.memory_used": "memory used",
    "metric.memory_total": "memory total",
    "metric.memory_free": "memory free",
    "metric.temperature": "temperature",
    "metric.power": "power",
    "metric.health": "health",
    # --- Resource keys: the wizard's first check ---
    "resource_key.invalid": "'{key}' is not a valid resource key: {problems:list}.",
    "resource_key.problems": "{problems:list}",
    "resource_key.found": (
        "✓ Resource detected in the cluster. '{key}': {capacity} on {count} {count:plural:node|nodes} "
        "({allocatable} allocatable)."
    ),
    "resource_key.zero_capacity": (
        "'{key}' is listed on {count} {count:plural:node|nodes} but with capacity 0: its device plugin "
        "is not "
        "reporting any device right now. Check that the plugin's pods are running and healthy on those nodes."
    ),
    "resource_key.not_found": (
        "No node advertises '{key}' among {count} {count:plural:node|nodes}. Check that the device plugin "
        "DaemonSet runs on the accelerator nodes and registers exactly this name ('kubectl describe node' "
        "lists it under Capacity); resource keys are case-sensitive."
    ),
    "resource_key.not_found_similar": (
        "No node advertises '{key}' among {count} {count:plural:node|nodes}. Check that the device plugin "
        "DaemonSet runs on the accelerator nodes and registers exactly this name ('kubectl describe node' "
        "lists it under Capacity); resource keys are case-sensitive. Did you mean '{similar}'?"
    ),
    "resource_key.not_found_similar_many": (
        "No node advertises '{key}' among {count} {count:plural:node|nodes}. Check that the device plugin "
        "DaemonSet runs on the accelerator nodes and registers exactly this name ('kubectl describe node' "
        "lists it under Capacity); resource keys are case-sensitive. Did you mean one of: {similar:list}?"
    ),
    "resource_key.rule.empty": (
        "the resource key is empty: enter the name the device plugin advertises, e.g. 'hyperaccel.ai/lpu'"
    ),
    "resource_key.rule.reserved_domain": (
        "'{key}': the 'kubernetes.io/' domain is reserved for Kubernetes; use the domain of the device's "
        "vendor, e.g. 'example.com/npu'"
    ),
    "resource_key.rule.requests_prefix": (
        "'{key}' must not start with 'requests.': Kubernetes uses that prefix for resource quotas; drop it"
    ),
    "resource_key.rule.missing_prefix": (
        "'{key}' must contain a domain prefix such as 'example.com/': names without one are Kubernetes' own "
        "resources (e.g. write 'example.com/{key}')"
    ),
    "resource_key.rule.extra_slash": (
        "'{key}' contains {slashes} '/'; it must contain exactly one, between the domain prefix and the name "
        "(e.g. 'example.com/npu')"
    ),
    "resource_key.rule.prefix_empty": (
        "the domain prefix before '/' is empty: write the vendor's domain there, e.g. 'example.com/npu'"
    ),
    "resource_key.rule.prefix_too_long": (
        "the prefix must be at most {max} characters (it has {length}): Kubernetes adds 'requests.' to it "
        "for quotas and allows 253 in all"
    ),
    "resource_key.rule.prefix_syntax": (
        "the prefix '{prefix}' must be a lowercase DNS subdomain: lowercase letters, digits, '-' and "
        "'.', each "
        "dot-separated part starting and ending with a letter or digit (e.g. 'hyperaccel.ai')"
    ),
    "resource_key.rule.name_empty": (
        "the name part after '/' is empty: write the resource's name there, e.g. 'example.com/npu'"
    ),
    "resource_key.rule.name_too_long": (
        "the name part must be at most {max} characters ('{name}' has {length})"
    ),
    "resource_key.rule.name_syntax": (
        "the name part '{name}' must consist of letters, digits, '-', '_' and '.', and start and end with a "
        "letter or digit (e.g. 'lpu', 'ATOM', 'mig-1g.5gb')"
    ),
    # --- Metric expressions: the wizard's second check ---
    "metric_check.labels_same": (
        "the node and device labels are both '{name}': map the label that tells the devices of one node "
        "apart (e.g. 'device', 'gpu')"
    ),
    "metric_check.unparsable": "{problem}. Fix the PromQL expression.",
    "metric_check.unparsable_quoted": (
        "'{expression}' is not valid PromQL; fix the expression. The parser says:"
    ),
    "metric_check.rejected": "Prometheus rejected '{query}' ({error_type}): {error}",
    "metric_check.untried": "the expression could not be tried: {reason}",
    "metric_check.not_vector": (
        "'{query}' returns a {result_type}, not one series per device; select the per-device metric"
    ),
    "metric_check.prometheus_warning": "{warning}",
    "metric_check.no_series": (
        "no series yet: Prometheus has no data for '{query}' right now. If the exporter was just deployed, "
        "wait for its first scrape; otherwise check the metric name and that Prometheus scrapes the exporter."
    ),
    "metric_check.label_absent": "{count} of {total} series have no '{name}' label",
    "metric_check.both": "{first} and {second}",
    "metric_check.no_labels": "none",
    "metric_check.missing_labels": (
        "{which}: NuFi needs both labels on every series to tell which node and device it describes. Map the "
        "labels the series carry (they have: {present}), or aggregate keeping them, e.g. "
        "'max by ({node}, {device}) ({query})'."
    ),
    "metric_check.duplicates": (
        "{count} {count:plural:device has|devices have} more than one series (e.g. {node_label}={node}, "
        "{device_label}={device}); NuFi uses the highest value. To choose yourself, aggregate to one series "
        "per device, e.g. 'max by ({node_label}, {device_label}) ({query})'."
    ),
    "metric_check.not_numbers": "{count} of {total} values are not numbers (NaN or infinite)",
    "metric_check.refused_values": (
        "{count} of {total} values are not measurements for this device type's fetcher (e.g. {example:g}, an "
        "exporter's marker for a value it could not read); they are shown as not reported"
    ),
    "metric_check.implausible_values": (
        "{count} of {total} values look implausible (e.g. {example:g}): {hint}; monitoring shows them as not "
        "reported"
    ),
    "metric_check.converted": (
        "{count} of {total} series were converted from {source} to {target}: the exporter reports them in an "
        "older unit, recognised by its range"
    ),
    "metric_check.converted_other": (
        "{count} of {total} series were converted ({conversion}): the exporter reports them in an older "
        "unit, "
        "recognised by its range"
    ),
    "metric_check.hint.utilization": (
        "utilization is a percentage per device from {min:g} to {max:g} (an average over cores, not a sum; "
        "multiply a 0-1 ratio by 100)"
    ),
    "metric_check.hint.memory": "memory cannot be negative; check the expression and its unit",
    "metric_check.hint.temperature": (
        "temperature is expected in °C from {min:g} to {max:g}; huge values usually mean the exporter could "
        "not read the sensor, or reports m°C"
    ),
    "metric_check.hint.power": "power draw is in W and cannot be negative",
    "metric_check.hint.health": (
        "a health expression gives 1 for a healthy device and 0 for an unhealthy one (e.g. 'x == bool 0' "
        "when the exporter's 0 means healthy)"
    ),
    # --- What an admin's expression may cost Prometheus ---
    "query_bounds.range": "{field}: {problem}",
    "query_bounds.count_timed_out": (
        "{field}: counting the series of '{query}' took longer than {series_check_timeout_seconds:g} s "
        "(NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS), so it is too costly to run for every snapshot; select "
        "fewer series or shorter ranges"
    ),
    "query_bounds.too_many_series": (
        "{field}: '{query}' selects {series} series, more than the {max_series} NuFi allows "
        "(NUFI_PROMQL_MAX_SERIES); narrow its selectors or aggregate, e.g. 'max by (node, device) (...)'"
    ),
    # --- Readings a device type's expressions gave ---
    "readings.not_run": "the query was not run",
    "readings.not_vector": (
        "'{query}' returns a {result_type}, not one series per device; select the exporter's per-device "
        "metric"
    ),
    "readings.unattributed": (
        "{count} series of '{query}' lack the node label '{node}' or the device label '{device}' and "
        "were left "
        "out; keep both labels in the expression, e.g. 'max by ({node}, {device}) ({query})'"
    ),
    # --- Plausible readings ---
    "plausibility.reading": "device {device} on node {node}: {reason}; it is shown as not reported",
    "plausibility.not_finite": "{metric} {value} is not a finite number",
    "plausibility.utilization": "utilization {value:g} % is outside {min:g} to {max:g} %",
    "plausibility.temperature": "temperature {value:g} °C is outside {min:g} to {max:g} °C",
    "plausibility.memory_negative": "{metric} {value:.0f} bytes is negative",
    "plausibility.power_negative": "power {value:g} W is negative",
    "plausibility.health": "health {value:g} is neither 1 (healthy) nor 0 (unhealthy)",
    "plausibility.memory_over_total": "memory used {used:.0f} bytes is more than the total {total:.0f} bytes",
    # --- Device types ---
    "device_type.not_found": "There is no device type {device_type!r}.",
    "device_type.no_official": "There is no official device type {device_type!r} to reset.",
    "device_type.id_reserved": (
        "{id!r} is a word the API uses in its paths (/api/v1/monitoring/{id}); choose another id."
    ),
    "device_type.id_official": "{device_type!r} is the id of an official device type; choose another id.",
    "device_type.official_undeletable": (
        "{device_type!r} is an official device type and cannot be deleted; disable it instead "
        '(PUT with "enabled": false), or reset it to the preset.'
    ),
    "device_type.in_use": (
        "Device type {device_type!r} is used by {count} {count:plural:workload|workloads}: {names}; delete "
        "them (or move them to another type) first."
    ),
    "device_type.official_key": (
        "Resource key {resource_key!r} belongs to the official device type {device_type!r}; edit that one "
        "instead of registering it again."
    ),
    "device_type.invalid_field": "{field}: {reason}",
    "device_type.official_identity": (
        "{field} of the official device type {device_type!r} cannot change; only {editable} can be edited."
    ),
    "device_type.stale": (
        "Device type {device_type!r} was changed by someone else (revision {current_revision}, you had "
        "revision {expected_revision}); reload it and apply your change again."
    ),
    "device_type.unreadable_official": (
        "The stored device type {device_type!r} is no longer valid ({field}: {reason}); reset it to its "
        "preset."
    ),
    "device_type.unreadable_custom": (
        "The stored device type {device_type!r} is no longer valid ({field}: {reason}); delete it and "
        "register it again."
    ),
    "device_type.labels_same": (
        "labels.node and labels.device are both '{name}': a series must say which node and, separately, "
        "which device on that node it describes"
    ),
    "device_type.memory_total_required": (
        "metrics.memory.total is required when mode is '{mode}': give the expression for total memory, or "
        "change the mode"
    ),
    "device_type.memory_free_required": (
        "metrics.memory.free is required when mode is '{mode}': give the expression for free memory, or "
        "change the mode"
    ),
    "device_type.memory_total_unused": (
        "metrics.memory.total is not used when mode is '{mode}': remove it, or set mode to 'used_total'"
    ),
    "device_type.memory_free_unused": (
        "metrics.memory.free is not used when mode is '{mode}': remove it, or set mode to 'used_free'"
    ),
    "device_type.promql_unparsable": "{problem} (fix the PromQL expression)",
    "device_type.thermal_hysteresis": (
        "thermal.recover_celsius ({recover:g}) must be below thermal.threshold_celsius ({threshold:g}), "
        "e.g. 10 degrees lower"
    ),
    "device_type.text_empty": "{name} must not be empty",
    "device_type.text_too_long": "{name} must be at most {max} characters ({length})",
    "device_type.fetcher_name": (
        "fetcher '{fetcher}' is not a fetcher name: use lowercase letters, digits, '-', '_' and '.' "
        "(e.g. '{example}')"
    ),
    "device_type.id_syntax": (
        "id '{id}' is not a valid id: use 1-63 lowercase letters, digits and '-', starting and ending with a "
        "letter or digit (e.g. 'lpu')"
    ),
    "draft.too_large": "The draft is larger than {limit} characters and was not kept.",
    "fetcher.unknown": (
        "fetcher '{fetcher}' is not available: choose one of {available}, or install the package that "
        "provides it (entry point group '{group}')"
    ),
    # --- Saving a device type: the wizard's checks again ---
    "save.resource_key_absent": "{check} Install its device plugin first, or save with ?force=true.",
    "save.label_lacking": "series lack the label {label!r}",
    "save.metric_failed": "metrics.{metric}: {problems:list} (or save with ?force=true)",
    "save.label_problem": "labels.{label}: {problem}",
    "save.labels_invalid": "{problems:list}",
    "save.metric_warning": "{metric}: {warning}",
    # --- PromQL expressions (nufi.models.promql) ---
    "promql.empty": "the expression is empty",
    "promql.not_text": "the expression contains characters that are not text",
    "promql.syntax": "cannot parse '{expression}': {reason}",
    "promql.too_long": (
        "the expression is {length} characters long, over the limit of {limit} characters; shorten it "
        "(e.g. aggregate or use a recording rule)"
    ),
    "promql.too_deep": (
        "the expression nests about {depth} levels deep (operators, brackets and function calls), over the "
        "limit of {limit} levels; simplify it (e.g. use a recording rule)"
    ),
    "promql.constant": (
        "'{expression}' is a constant, not a per-device series; select the exporter's metric, "
        "e.g. 'lpu_utilization_percent'"
    ),
    "promql.range_vector": (
        "'{expression}' is a range vector; wrap it in a function that gives one value per series, "
        "e.g. 'avg_over_time({expression})'"
    ),
    "promql.range_too_wide": (
        "'{expression}' has a range selector over {range}, longer than the {limit} NuFi allows "
        "(NUFI_PROMQL_MAX_RANGE_SECONDS); use a shorter range"
    ),
    "promql.subquery_too_wide": (
        "'{expression}' has a subquery over {range}, longer than the {limit} NuFi allows "
        "(NUFI_PROMQL_MAX_RANGE_SECONDS); use a shorter range"
    ),
    "promql.step_too_fine": (
        "'{expression}' has a subquery step of {step}, finer than the {limit} NuFi allows "
        "(NUFI_PROMQL_MIN_SUBQUERY_STEP_SECONDS); use a coarser step, or leave it out for the evaluation "
        "interval"
    ),
    "promql.label.empty": "the label name is empty: enter the label as it appears on the exporter's series",
    "promql.label.syntax": (
        "'{name}' is not a Prometheus label name: use letters, digits and '_', not starting with a digit "
        "(e.g. 'node', 'exported_pod')"
    ),
    "promql.label.reserved": (
        "'{name}' starts with '__', which Prometheus reserves for internal labels that never reach stored "
        "series; use the label the exporter's series carry"
    ),
    # --- Prometheus itself (nufi.prom) ---
    "prometheus.timed_out": "Prometheus at {url} did not answer within {seconds:g} s",
    "prometheus.connect_failed": "cannot connect to Prometheus at {url}: {reason}",
    "prometheus.request_failed": "request to Prometheus at {url} failed: {reason}",
    "prometheus.query_rejected": (
        "Prometheus rejected the query {query!r} ({error_type}): {error}. Fix the PromQL expression."
    ),
    "prometheus.query_failed": (
        "Prometheus at {url} could not answer the query {query!r} ({error_type}): {error}"
    ),
    "prometheus.answer_too_large": (
        "Prometheus at {url} answered the query {query!r} with more than {limit}, the most NuFi reads; "
        "narrow the expression (fewer series or labels) or raise NUFI_PROMETHEUS_MAX_RESPONSE_BYTES"
    ),
    "prometheus.not_its_api": (
        "{url} answered HTTP {status} without a Prometheus API response; check that NUFI_PROMETHEUS_URL "
        "points at Prometheus itself"
    ),
    "prometheus.read_failed": "Prometheus at {url} answered HTTP {status} with an error",
    "prometheus.reload_failed": (
        "Prometheus at {url} did not reload its rules (HTTP {status}: {reason}); start it with "
        "--web.enable-lifecycle, or set NUFI_ALERTS_RELOAD=false where a config reloader does it"
    ),
    "prometheus.not_configured": (
        "Prometheus is not configured: set NUFI_PROMETHEUS_URL to the Prometheus base URL, "
        "e.g. http://prometheus:9090"
    ),
    "prometheus.malformed": "Prometheus sent a malformed query result: {problem}",
    "prometheus.value_not_string": (
        "Prometheus sent a sample value {value} that is not a string; is the configured URL really a "
        "Prometheus server?"
    ),
    "prometheus.value_not_number": (
        "Prometheus sent a sample value {value} that is not a number; is the configured URL really a "
        "Prometheus server?"
    ),
    "prometheus.timestamp_invalid": "Prometheus sent a sample timestamp {value} that is not Unix seconds",
}
