"""English texts of the monitoring charts."""

TEXTS: dict[str, str] = {
    "charts.title": "Over time",
    "charts.empty": (
        "Nothing to draw in this range yet. If the data has only just started arriving, "
        "a shorter range such as {shorter} shows it sooner."
    ),
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
