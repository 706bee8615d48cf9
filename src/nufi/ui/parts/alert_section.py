"""The Alerts section of Admin → Devices: once a device type is chosen (by the drop-down, or
`?alerts=<id>` in the URL), its thresholds to edit and the rules written for it (`alert_thresholds`).
Nothing is read for a type until one is chosen: the device list opens as fast as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.alert_thresholds import ThresholdsCard
from nufi.ui.parts.workload_forms import type_names
from nufi.ui.rebuilt import Rebuilt

# The query parameter naming the type whose alerts the section shows.
PARAM = "alerts"


class AlertSection:
    def __init__(
        self, principal: Principal, t: Translator, chosen: str | None, moved: Callable[[str], None]
    ) -> None:
        """`moved` is told the page's URL for the chosen type (for the language links)."""
        self.principal, self.t, self.chosen, self.moved = principal, t, chosen, moved
        self.names: dict[str, str] = {}
        self.card = Rebuilt(self._card)

    async def draw(self) -> None:
        t = self.t
        ui.label(t("alerting.admin.title")).classes("text-xl font-semibold mt-6").props('id="alerts"')
        ui.label(t("alerting.admin.intro")).classes("text-slate-600 max-w-3xl")
        self.names = await type_names(self.principal)
        if not self.names:
            ui.label(t("alerting.admin.none")).classes("text-slate-600")
            return
        if self.chosen not in self.names:
            self.chosen = None
        ui.select(
            self.names, value=self.chosen, label=t("alerting.admin.pick"), on_change=self._pick
        ).classes("min-w-[18rem]").props('data-testid="alerts-admin-type"').mark("alerts-admin-type")
        await self.card.show()

    async def _pick(self, event: Any) -> None:
        self.chosen = None if event.value is None else str(event.value)
        if self.chosen is not None:
            self.moved(self.chosen)
        await self.card.show()

    async def _card(self) -> None:
        if self.chosen is None:
            return
        try:
            entry = await context.services().alerts.thresholds(self.principal, self.chosen)
        except NufiError as exc:
            ui.label(exc.text(self.t.language)).classes("text-red-700").mark("alerts-admin-error")
            return
        ThresholdsCard(self.principal, self.t, entry, self.names.get(self.chosen, self.chosen))
