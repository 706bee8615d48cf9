"""A monitored device's state as chips: what is wrong with its data, its health where its type maps
health, thermal control's mark on its node and the alerts firing on it, each chip saying which."""

from __future__ import annotations

from typing import Any, Literal

from nufi.monitoring.snapshots.snapshot import Health
from nufi.ui.i18n import Translator
from nufi.ui.parts.thermal_chips import chip, chip_words

# What can be wrong with a row's data (not with the device): the chip of each says so.
DataState = Literal["stale", "implausible", "not_reporting"]


def device_state(
    t: Translator,
    data: DataState | None,
    health: Health,
    thermal: str | None,
    alerts: list[dict[str, str]],
) -> dict[str, Any]:
    """The row's `state` in words and its `state_chips`: what is wrong with its data (`stale`,
    `implausible` or `not_reporting`; None when nothing is, as the page's "updated n s ago" says),
    the device's health (`unknown` when its type maps none or it reports none: no claim at all),
    thermal control's mark on its node, then the alerts firing on it. "Healthy" shows only on a row
    with nothing else to say: beside a hot, stale or alerting mark a green word would read as the
    device being fine."""
    chips = [] if data is None else [chip(data, t(f"monitoring.state.{data}"))]
    if health == "unhealthy":
        chips.append(chip("unhealthy", t("monitoring.health.unhealthy")))
    if thermal is not None:
        chips.append(chip(thermal, t(f"monitoring.thermal.{thermal}")))
    chips += alerts
    if health == "ok" and not chips:
        chips.append(chip("healthy", t("monitoring.health.ok")))
    return {"state": chip_words(chips), "state_chips": chips}
