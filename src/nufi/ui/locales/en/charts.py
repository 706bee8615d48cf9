"""English texts of the monitoring charts."""

TEXTS: dict[str, str] = {
    "charts.title": "Over time",
    "charts.loading": "Loading the time range…",
    "charts.metric.utilization": "Utilization",
    "charts.metric.memory": "Memory",
    "charts.metric.temperature": "Temperature",
    "charts.metric.power": "Power",
    "charts.unit.utilization": "%",
    "charts.unit.memory": "GiB (used)",
    "charts.unit.temperature": "°C",
    "charts.unit.power": "W",
    # The axis label at a day's (or a month's, or a year's) first tick.
    "charts.axis.day": "{month}/{day}",
    "charts.axis.year": "{year}/{month}/{day}",
}
