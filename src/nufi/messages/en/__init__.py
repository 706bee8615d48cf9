"""English: what the services say, area by area."""

from nufi.messages.en import (
    alerts,
    cli,
    common,
    devices,
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
}
