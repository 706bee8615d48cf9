"""The Accelerator drop-down of the workload forms, and the warning under their count field.

Each option names the type and its free devices, in total and on the best node: a pod takes all its
devices from one node, so "5 free" on two nodes does not fit a pod asking for 5. As the person types a
count the warning says, before they submit, whether it fits no node right now (amber: the service
accepts it and the pod waits, Pending) or no node ever (red: more than any node's allocatable, which
the service refuses). Beside the drop-down, the project's quota of the chosen type and what it has in
use (the tightest ResourceQuota of its namespace), since a count past the quota's room is refused too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from nicegui import ui

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.errors import told
from nufi.workloads.accelerators import AcceleratorOffer

# Tailwind colours of the count warning: amber for "not now", red for "never".
_WARNING_CLASSES = {"now": "text-amber-800", "never": "text-negative", "quota": "text-negative"}


def most_free_on_one_node(offer: AcceleratorOffer) -> int:
    return max((node.free for node in offer.nodes), default=0)


def most_on_one_node(offer: AcceleratorOffer) -> int:
    return max((node.allocatable for node in offer.nodes), default=0)


def accelerator_label(t: Translator, offer: AcceleratorOffer) -> str:
    """ "HyperAccel LPU — 5 free (at most 4 on one node now)"."""
    if offer.free == 0:
        return t("workloads.accelerator.option_none_free", name=offer.name)
    return t(
        "workloads.accelerator.option", name=offer.name, free=offer.free, most=most_free_on_one_node(offer)
    )


def accelerator_options(t: Translator, offers: Iterable[AcceleratorOffer]) -> dict[str, str]:
    return {offer.device_type: accelerator_label(t, offer) for offer in offers}


@dataclass(frozen=True)
class FitWarning:
    level: Literal["now", "never", "quota"]
    text: str


def quota_text(t: Translator, offer: AcceleratorOffer | None) -> str:
    """ "HyperAccel LPU: 2 of 4 in use by this project", or that no quota limits the type."""
    if offer is None:
        return ""
    if offer.quota is None:
        return t("workloads.quota.unlimited", name=offer.name)
    return t("workloads.quota.in_use", name=offer.name, used=offer.in_use or 0, quota=offer.quota)


def quota_room(offer: AcceleratorOffer) -> int | None:
    """How many more devices the project's quota lets its pods ask for; None: no quota."""
    if offer.quota is None:
        return None
    return max(offer.quota - (offer.in_use or 0), 0)


def fit_warning(t: Translator, offer: AcceleratorOffer | None, count: object) -> FitWarning | None:
    """What a pod asking for `count` devices of `offer` meets: no node that can ever give them, no
    node that has them free now, or (None) a node that has them now. A count that is not a whole
    number from 1 is the form's validation's to name."""
    if offer is None or not isinstance(count, int | float) or count != int(count) or count < 1:
        return None
    wanted = int(count)
    name = offer.name
    room = quota_room(offer)
    if room is not None and wanted > room:
        return FitWarning(
            "quota", t("workloads.fit.quota", count=wanted, name=name, room=room, quota=offer.quota)
        )
    most = most_on_one_node(offer)
    if wanted > most:
        return FitWarning("never", t("workloads.fit.never", count=wanted, name=name, most=most))
    free = most_free_on_one_node(offer)
    if wanted > free:
        return FitWarning("now", t("workloads.fit.not_now", count=wanted, name=name, most=free))
    return None


class AcceleratorPicker:
    """The Accelerator drop-down: the enabled types the cluster has, with their free devices, read
    again by `refresh` (the page's one timer) so the counts follow the cluster; the choice is kept
    while its type is offered. `watch` puts the count warning under a count field."""

    def __init__(self, principal: Principal, t: Translator, marker: str, project: str | None = None) -> None:
        self.principal = principal
        self.project = project
        self.t = t
        self.marker = marker
        self.offers: dict[str, AcceleratorOffer] = {}
        self.select = ui.select({}, value=None, label=t("workloads.field.accelerator"))
        self.select.classes("w-full").props(f'outlined dense data-testid="{marker}"').mark(marker)
        self.note = ui.label("").classes("text-caption text-slate-600").mark(f"{marker}-note")
        self.note.set_visibility(False)
        self.quota = ui.label("").classes("text-caption text-slate-600 -mt-1").mark(f"{marker}-quota")
        self.quota.props(f'data-testid="{marker}-quota"')
        self.quota.set_visibility(False)
        self._count: ui.number | None = None
        self._warning: ui.label | None = None
        self._refused: ui.label | None = None
        self.select.on_value_change(lambda _: self._chosen())

    @property
    def value(self) -> str:
        return str(self.select.value or "")

    def names(self) -> dict[str, str]:
        """The offered types' names by id, for the rows that name a type."""
        return {offer.device_type: offer.name for offer in self.offers.values()}

    def watch(self, count: ui.number, refused: ui.label | None = None) -> None:
        """Warn, here (right under `count`), when the count typed fits no node now or ever.

        `refused` is where the service's refusal of the count is shown: it spoke of the count sent,
        so a new count hides it, and while it is shown the red warning would only repeat it."""
        self._count = count
        self._refused = refused
        warning = ui.label("").classes("text-caption -mt-1").mark(f"{self.marker}-fit")
        warning.props(f'role="status" aria-live="polite" data-testid="{self.marker}-fit"')
        warning.set_visibility(False)
        self._warning = warning
        count.on_value_change(lambda _: self._count_changed())

    def _chosen(self) -> None:
        self.show_quota()
        self.warn()

    def show_quota(self) -> None:
        offer = self.offers.get(self.value)
        said = quota_text(self.t, offer)
        full = offer is not None and quota_room(offer) == 0
        self.quota.classes(remove="text-slate-600 text-amber-800")
        self.quota.classes("text-amber-800" if full else "text-slate-600")
        self.quota.set_text(said)
        self.quota.set_visibility(bool(said))

    def _count_changed(self) -> None:
        if self._refused is not None and self._refused.visible:
            self._refused.set_text("")
            self._refused.set_visibility(False)
        self.warn()

    def warn(self) -> None:
        if self._warning is None or self._count is None:
            return
        warning = fit_warning(self.t, self.offers.get(self.value), self._count.value)
        if warning is not None and warning.level != "now" and self._refused and self._refused.visible:
            warning = None
        shown = self._warning
        shown.classes(remove=" ".join(_WARNING_CLASSES.values()))
        if warning is None:
            shown.set_text("")
            shown.set_visibility(False)
            return
        shown.classes(_WARNING_CLASSES[warning.level])
        shown.props(f'data-level="{warning.level}"')
        shown.set_text(warning.text)
        shown.set_visibility(True)

    async def refresh(self) -> None:
        try:
            offers = await context.services().accelerators.available(self.principal, self.project)
        except NufiError as exc:
            self.offers, options, note = {}, {}, told(self.t, exc).line
        else:
            self.offers = {offer.device_type: offer for offer in offers}
            options = accelerator_options(self.t, offers)
            note = "" if options else self.t("workloads.accelerator.none")
        self.note.set_text(note)
        self.note.set_visibility(bool(note))
        keep = self.select.value if self.select.value in options else next(iter(options), None)
        if options != self.select.options or keep != self.select.value:
            self.select.set_options(options, value=keep)
        self.show_quota()
        self.warn()
