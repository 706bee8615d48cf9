"""Korean (한국어), NuFi's first language: the dashboard's texts, area by area."""

from nufi.ui.locales.ko import (
    alerts,
    audit,
    charts,
    deployments,
    devices,
    frame,
    labs,
    monitoring,
    projects,
    signin,
    thermal,
    wizard,
    workloads,
)

AREAS: dict[str, dict[str, str]] = {
    "frame": frame.TEXTS,
    "signin": signin.TEXTS,
    "monitoring": monitoring.TEXTS,
    "alerts": alerts.TEXTS,
    "charts": charts.TEXTS,
    "devices": devices.TEXTS,
    "audit": audit.TEXTS,
    "wizard": wizard.TEXTS,
    "thermal": thermal.TEXTS,
    "workloads": workloads.TEXTS,
    "deployments": deployments.TEXTS,
    "labs": labs.TEXTS,
    "projects": projects.TEXTS,
}
