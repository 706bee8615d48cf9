"""English: the annotations of the generated alerting rules, and what the alerts services say."""

TEXTS: dict[str, str] = {
    # Annotations of each generated rule. Prometheus fills {node}, {device}, {pod} and {value} in when
    # the alert fires; {hold} is the rule's `for:` in seconds.
    "alerts.rule.hot.summary": "{type} device {device} on {node} is hot ({value} °C)",
    "alerts.rule.hot.description": (
        "Device {device} on node {node} {pod} has been at or above {threshold:g} °C for {hold} s. "
        "Thermal traffic control may take the node or the device out of service. Check the node's "
        "cooling and airflow and the load of the pods on it (kubectl describe node {node})."
    ),
    "alerts.rule.memory.summary": "{type} device {device} on {node} is {value}% full",
    "alerts.rule.memory.description": (
        "Device {device} on node {node} {pod} has used at least {threshold:g}% of its memory for "
        "{hold} s. New allocations on it may fail: check the workload's batch size and context "
        "length, or move it to a device with more memory."
    ),
    "alerts.rule.unhealthy.summary": "{type} device {device} on {node} is unhealthy",
    "alerts.rule.unhealthy.description": (
        "The exporter has reported device {device} on node {node} {pod} as unhealthy for {hold} s. "
        "Requests served by it may fail. Check the device's driver and firmware logs on the node, "
        "then drain the node if the device does not recover."
    ),
    "alerts.rule.exporter_down.summary": "No {type} device on {node} reports metrics",
    "alerts.rule.exporter_down.description": (
        "Node {node} has {value} {type} devices by its capacity, but none of them has reported a "
        "metric for {hold} s: the exporter on the node is down or not scraped. Monitoring and thermal "
        "control are blind there until it reports again; check the exporter's pod on the node."
    ),
    "alerts.rule.missing_device.summary": "{value} {type} devices on {node} do not report",
    "alerts.rule.missing_device.description": (
        "Node {node} reports {value} fewer {type} devices than its capacity says, for {hold} s. "
        "A device may have fallen off the bus or failed: check the node's kernel log and the device "
        "plugin, and drain the node before replacing the device."
    ),
    "alerts.rule.breaker_held.summary": "The circuit breaker holds {type} nodes back",
    "alerts.rule.breaker_held.description": (
        "More {type} nodes are affected (hot or unhealthy) than protection may cut at once, so some "
        "keep serving although affected. Look at Admin → Thermal for which nodes, and at the devices: "
        "many failing together often share a cause (cooling, power, a driver rollout)."
    ),
    # Where the rules go, and why they could not be written.
    "alerts.target_off": "not configured: alert rules are off (NUFI_ALERTS_TARGET=off)",
    "alerts.no_target": (
        "not configured: the cluster serves no PrometheusRule (monitoring.coreos.com/v1) and "
        "NUFI_ALERTS_RULES_DIR is not set; set it to a directory your Prometheus loads with rule_files"
    ),
    "alerts.rules_dir_unset": (
        "not configured: NUFI_ALERTS_TARGET is file but NUFI_ALERTS_RULES_DIR is not set"
    ),
    "alerts.configmap_unset": (
        "not configured: NUFI_ALERTS_TARGET is configmap but NUFI_ALERTS_CONFIGMAP is not set (or "
        "Kubernetes is not configured)"
    ),
    "alerts.prometheusrule_not_served": (
        "NUFI_ALERTS_TARGET is prometheusrule, but the cluster serves no monitoring.coreos.com/v1 "
        "PrometheusRule: install the Prometheus Operator's CRDs, or choose another target"
    ),
    "alerts.sync_failed": "alert rules could not be written: {reason}",
    # The rules a type's group would break, and how the status reads to those who are not admins.
    "alerts.groups_refused": (
        "Prometheus would refuse the alert rules of {types:list}, so they were not written and what "
        "was written for them before stays as it was; the other types' rules were written. The first "
        "fault: {reason}"
    ),
    "alerts.status.failing": (
        "The alert rules could not all be written; an administrator can see why on this page."
    ),
    "alerts.status.not_configured": "Alert rules are not set up on this installation.",
    "prometheus.reload_without_rules": (
        "the metrics engine at {url} answered the reload with HTTP 204, as VictoriaMetrics does: it "
        "evaluates no alerting rules. NuFi's alerts need Prometheus, or a rule evaluator such as "
        "vmalert loading the rules NuFi writes; set NUFI_ALERTS_RELOAD=false where that evaluator "
        "reloads them itself"
    ),
}
