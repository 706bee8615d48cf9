"""English texts of the Alerts page, the alert marks in Monitoring, and the Alerts section of
Admin → Devices."""

TEXTS: dict[str, str] = {
    "alerting.title": "Alerts",
    "alerting.intro": (
        "The alerts of the Prometheus rules NuFi writes for each device type that are firing, or "
        "pending before they fire, now."
    ),
    "alerting.filter.type": "Device type",
    "alerting.filter.all": "All types",
    "alerting.rules.ok": "Alert rules of {groups} groups written to {target}: {location}",
    "alerting.rules.written": "Alert rules of {groups} groups written to {target}.",
    "alerting.rules.problem": "The alert rules have a problem: {problem}",
    "alerting.rules.not_yet": "The alert rules are not written yet.",
    "alerting.target.file": "rule files",
    "alerting.target.prometheusrule": "PrometheusRule",
    "alerting.target.none": "nowhere",
    "alerting.alertmanager": "Open in Alertmanager",
    "alerting.empty": "No alerts firing.",
    "alerting.unavailable": "Alerts cannot be read, Prometheus cannot be reached: {detail}",
    "alerting.column.state": "State",
    "alerting.column.severity": "Severity",
    "alerting.column.device_type": "Device type",
    "alerting.column.node": "Node",
    "alerting.column.device": "Device",
    "alerting.column.pod": "Pod",
    "alerting.column.value": "Value",
    "alerting.column.since": "Since",
    "alerting.column.summary": "Summary",
    "alerting.state.firing": "Firing",
    "alerting.state.pending": "Pending",
    "alerting.severity.critical": "Critical",
    "alerting.severity.warning": "Warning",
    "alerting.another_project": "another project",
    "alerting.since": "for {age}",
    "alerting.mark": "Alert",
    # Admin → Devices → Alerts.
    "alerting.admin.title": "Alerts",
    "alerting.admin.intro": (
        "NuFi writes Prometheus alerting rules for each type with the thresholds below. "
        "Saving writes its rules again at once."
    ),
    "alerting.admin.pick": "Device type whose alerts to show",
    "alerting.admin.none": "No device type is registered.",
    "alerting.source.default": "default",
    "alerting.source.admin": "set by an admin ({who})",
    "alerting.kind.hot": "Device hot",
    "alerting.kind.memory": "Memory nearly full",
    "alerting.kind.unhealthy": "Unhealthy",
    "alerting.kind.exporter_down": "Exporter down",
    "alerting.kind.breaker_held": "Circuit breaker holding nodes back",
    "alerting.kind.missing_device": "Devices missing",
    "alerting.field.celsius": "Temperature",
    "alerting.field.follows": "Empty: follows the thermal trip ({trip} °C)",
    "alerting.field.percent": "Share used",
    "alerting.field.for_seconds": "Held for",
    "alerting.unit.seconds": "s",
    "alerting.save": "Save",
    "alerting.saved": "Alert thresholds of {device_type} saved.",
    "alerting.generated": "Generated rules",
    "alerting.generated.none": "This type is disabled: no rules are written for it.",
    "alerting.generated.no_health": (
        "NuFiDeviceUnhealthy is not generated: {device_type} maps no health expression."
    ),
    "alerting.generated.no_temperature": (
        "NuFiDeviceHot is not generated: {device_type} maps no temperature expression."
    ),
    "alerting.generated.alert": "Alert",
    "alerting.generated.expr": "Condition (PromQL)",
    "alerting.generated.for": "For",
    "alerting.generated.severity": "Severity",
}
