"""English: what the services say, area by area."""

from nufi.messages.en import (
    alerts,
    cli,
    common,
    devices,
    metrics_backend,
    monitoring,
    packs,
    platform,
    thermal,
    web,
    workloads,
)

AREAS: dict[str, dict[str, str]] = {
    "common": common.TEXTS,
    "web": web.TEXTS,
    "devices": devices.TEXTS,
    "workloads": workloads.TEXTS,
    "platform": platform.TEXTS,
    "monitoring": monitoring.TEXTS,
    "thermal": thermal.TEXTS,
    "alerts": alerts.TEXTS,
    "cli": cli.TEXTS,
    "packs": packs.TEXTS,
    "metrics_backend": metrics_backend.TEXTS,
}
