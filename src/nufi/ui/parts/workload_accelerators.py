"""The Accelerator drop-down of the workload forms, and the warning under their count field.

Each option names the type and its free devices, in total and on the best node: a pod takes all its
devices from one node, so "5 free" on two nodes does not fit a pod asking for 5. As the person types a
count the warning says, before they submit, whether it fits no node right now (amber: the service
accepts it and the pod waits, Pending) or no node ever (red: more than any node's allocatable, which
the service refuses). Beside the drop-down, the project's quota of the chosen type and what it has in
use (the tightest ResourceQuota of its namespace), since devices past the quota's room are refused
too: the warning counts every replica's (replicas times count; for a scale, the replicas it adds) and
says how many replicas fit when one pod does. The drop-down opens on the type the person chose last on
this form for this project (a cookie of their browser), as a reload keeps the other fields' defaults.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from nicegui import ui

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.errors import told
from nufi.workloads.accelerators import AcceleratorOffer
from nufi.workloads.quotas.room import Replicas

# Tailwind colours of the count warning: amber for "not now", red for "never".
_WARNING_CLASSES = {"now": "text-amber-800", "never": "text-negative", "quota": "text-negative"}
# How long a browser keeps the last accelerator chosen: a preference, as the language is.
_REMEMBER_SECONDS = 366 * 86400


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


def fit_warning(
    t: Translator, offer: AcceleratorOffer | None, count: object, replicas: object = 1
) -> FitWarning | None:
    """What `replicas` pods asking for `count` devices of `offer` each meet: more than the project's
    quota has room for (all of them counted), no node that can ever give one pod its devices, no node
    that has them free now, or (None) a node that has them now. A count or a replica count that is not
    a whole number is the form's validation's to name."""
    wanted, pods = whole(count), whole(replicas)
    if offer is None or wanted is None or wanted < 1:
        return None
    quota = quota_warning(t, offer, wanted, 1 if pods is None else pods)
    if quota is not None:
        return quota
    name = offer.name
    most = most_on_one_node(offer)
    if wanted > most:
        return FitWarning("never", t("workloads.fit.never", count=wanted, name=name, most=most))
    free = most_free_on_one_node(offer)
    if wanted > free:
        return FitWarning("now", t("workloads.fit.not_now", count=wanted, name=name, most=free))
    return None


def quota_warning(
    t: Translator, offer: AcceleratorOffer, count: int, replicas: int, counted: int = 0
) -> FitWarning | None:
    """The project's quota against `replicas` pods of `count` devices each, `counted` of them running
    and in its use already (a scale): None when the pods added fit its room; else what the service
    refuses, and the replicas that fit when one pod does (or a scale asks only for replicas)."""
    room = quota_room(offer)
    added = replicas - counted
    if room is None or added <= 0 or added * count <= room:
        return None
    said = {"name": offer.name, "quota": offer.quota, "room": room, "count": count}
    if room == 0:
        return FitWarning("quota", t("workloads.fit.quota_full", **said, total=added * count))
    ask = Replicas("replicas", count, counted)
    if (added > 1 and ask.fits_one(room)) or counted:
        return FitWarning(
            "quota",
            t(
                "workloads.fit.quota_replicas",
                **said,
                added=added,
                total=added * count,
                fitting=ask.fitting(room),
            ),
        )
    return FitWarning("quota", t("workloads.fit.quota", **{**said, "count": added * count}))


def whole(value: object) -> int | None:
    """A number input's value as a whole number; None when it is empty or not whole."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) else None


class AcceleratorPicker:
    """The Accelerator drop-down: the enabled types the cluster has, with their free devices, read
    again by `refresh` (the page's one timer) so the counts follow the cluster; the choice is kept
    while its type is offered. `watch` puts the count warning under a count field."""

    def __init__(
        self,
        principal: Principal,
        t: Translator,
        marker: str,
        project: str | None = None,
        *,
        cookies: Mapping[str, str] | None = None,
    ) -> None:
        self.principal = principal
        self.project = project
        self.t = t
        self.marker = marker
        # The person's last choice on this form for this project, kept by their browser (`cookies`:
        # the page request's), so a reload or the next visit opens on it.
        self._cookie = f"nufi_{marker}_{project or ''}"
        self._remembered = (cookies or {}).get(self._cookie)
        self._refreshing = False
        self._replicas: ui.number | None = None
        self._replicas_refused: ui.label | None = None
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

    def times(self, replicas: ui.number, refused: ui.label | None = None) -> None:
        """Count the quota's warning for `replicas` pods of the count each; a new replica count hides
        the service's refusal shown at `refused` as a new count does."""
        self._replicas = replicas
        self._replicas_refused = refused
        replicas.on_value_change(lambda _: self._count_changed())

    def _chosen(self) -> None:
        if not self._refreshing and self.value:
            self._remember(self.value)
        self.show_quota()
        self.warn()

    def _remember(self, device_type: str) -> None:
        cookie = f"{self._cookie}={device_type}; path=/; max-age={_REMEMBER_SECONDS}; samesite=lax"
        self.select.client.run_javascript(f"document.cookie = {json.dumps(cookie)}")

    def show_quota(self) -> None:
        offer = self.offers.get(self.value)
        said = quota_text(self.t, offer)
        full = offer is not None and quota_room(offer) == 0
        self.quota.classes(remove="text-slate-600 text-amber-800")
        self.quota.classes("text-amber-800" if full else "text-slate-600")
        self.quota.set_text(said)
        self.quota.set_visibility(bool(said))

    def _count_changed(self) -> None:
        for refused in (self._refused, self._replicas_refused):
            if refused is not None and refused.visible:
                refused.set_text("")
                refused.set_visibility(False)
        self.warn()

    def _refusal_shown(self) -> bool:
        return any(
            refused is not None and refused.visible for refused in (self._refused, self._replicas_refused)
        )

    def warn(self) -> None:
        if self._warning is None or self._count is None:
            return
        replicas = 1 if self._replicas is None else self._replicas.value
        warning = fit_warning(self.t, self.offers.get(self.value), self._count.value, replicas)
        if warning is not None and warning.level != "now" and self._refusal_shown():
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
        keep = next(
            (choice for choice in (self.select.value, self._remembered) if choice in options),
            next(iter(options), None),
        )
        if options != self.select.options or keep != self.select.value:
            self._refreshing = True
            try:
                self.select.set_options(options, value=keep)
            finally:
                self._refreshing = False
        self.show_quota()
        self.warn()
