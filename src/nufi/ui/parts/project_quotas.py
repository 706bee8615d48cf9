"""A project's quotas on Admin → Projects: per device type, storage and pods, each with a bar of what
the quota counts in use against its limit, and the limits to edit and save.

The quota is the project's ResourceQuota as `QuotaService` reads it; what nothing limits has no usage
to show (the quota counts only what it limits), so it reads "no limit". The rows are the enabled
device types, and any type the quota already limits (a disabled one stays limited until removed), so
saving never drops a limit the admin did not see. An empty field saves as "no limit".
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from nicegui import ui

from nufi.auth import Principal
from nufi.cluster.resources import parse_quantity
from nufi.devices.spec import DeviceType
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.errors import told
from nufi.ui.parts.workload_forms import FieldErrors, as_int
from nufi.workloads.quotas.request import QuotaRequest
from nufi.workloads.quotas.service import Figure, ProjectQuota, device_field


def shown_types(types: Sequence[DeviceType], quota: ProjectQuota) -> list[tuple[str, str]]:
    """(id, name) of every row: the enabled types and those the quota limits, in the catalog's order."""
    limited = {d.device_type for d in quota.devices}
    rows = [(d.id, d.name) for d in types if d.enabled or d.id in limited]
    known = {type_id for type_id, _ in rows}
    return rows + [(type_id, type_id) for type_id in sorted(limited - known)]


def fraction(used: Decimal, hard: Decimal) -> float:
    """How full a bar is: a limit of 0 with nothing used is empty, with anything used full."""
    if hard <= 0:
        return 1.0 if used > 0 else 0.0
    return float(min(used / hard, Decimal(1)))


def figure_fraction(figure: Figure) -> float:
    try:
        return fraction(parse_quantity(figure.used), parse_quantity(figure.hard))
    except ValueError:
        return 0.0


def _optional(value: object) -> object:
    """A field's value as the form takes it: empty means no limit."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return value.strip() if isinstance(value, str) else as_int(value)


class QuotaEditor:
    """The quota section of one project's card, drawn from the quota the page read for all its
    projects at once (`QuotaService.read_many`), or the error that read met."""

    def __init__(self, principal: Principal, t: Translator, project: str) -> None:
        self.principal = principal
        self.t = t
        self.project = project
        self.types: list[DeviceType] = []
        self.box = ui.column().classes("w-full gap-2").mark(f"quota-{project}")

    def show(self, types: Sequence[DeviceType], quota: ProjectQuota) -> None:
        self.types = list(types)
        self.draw(quota)

    def failed(self, exc: Exception) -> None:
        """The quotas could not be read: say why where the quota would be."""
        self.box.clear()
        with self.box:
            ui.label(self.t("projects.quota.title")).classes("font-medium")
            ui.label(told(self.t, exc).line).classes("text-negative").mark(f"quota-{self.project}-read-error")

    def draw(self, quota: ProjectQuota) -> None:
        self.box.clear()
        with self.box:
            ui.label(self.t("projects.quota.title")).classes("font-medium")
            if not quota.devices and quota.storage is None and quota.pods is None:
                ui.label(self.t("projects.quota.none")).classes("text-sm text-slate-600").mark(
                    f"quota-{self.project}-none"
                )
            self._fields(quota)

    def _fields(self, quota: ProjectQuota) -> None:
        errors = FieldErrors(self.t, f"quota-{self.project}")
        held = {d.device_type: d for d in quota.devices}
        devices: dict[str, ui.number] = {}
        rows = shown_types(self.types, quota)
        with ui.grid(columns="minmax(8rem,14rem) minmax(10rem,1fr) 16rem").classes(
            "w-full items-center gap-x-4 gap-y-1"
        ):
            for type_id, name in rows:
                ui.label(name).classes("text-sm")
                found = held.get(type_id)
                if found is None:
                    self._usage(f"devices-{type_id}", None, "")
                else:
                    said = self.t("projects.quota.used", used=found.used, hard=found.hard)
                    self._usage(
                        f"devices-{type_id}", fraction(Decimal(found.used), Decimal(found.hard)), said
                    )
                devices[type_id] = self._count(errors, device_field(type_id), found.hard if found else None)
            ui.label(self.t("projects.quota.storage")).classes("text-sm")
            self._figure("storage", quota.storage)
            with ui.column().classes("gap-1 w-full"):
                storage = ui.input(
                    self.t("projects.quota.field.storage"),
                    value=quota.storage.hard if quota.storage else "",
                )
                storage.classes("w-full").props("outlined dense").mark(f"quota-{self.project}-storage")
                errors.slot("storage")
            ui.label(self.t("projects.quota.pods")).classes("text-sm")
            self._figure("pods", quota.pods)
            pods = self._count(errors, "pods", int(quota.pods.hard) if quota.pods else None)
        if not rows:
            ui.label(self.t("projects.quota.no_types")).classes("text-sm text-slate-600")
        save = ui.button(self.t("projects.quota.action.save"), icon="save").props("outline no-caps")
        save.mark(f"quota-{self.project}-save")

        async def submit() -> None:
            errors.clear()
            try:
                form = QuotaRequest.model_validate(
                    {
                        "devices": {
                            type_id: v
                            for type_id, entry in devices.items()
                            if (v := _optional(entry.value)) is not None
                        },
                        "storage": _optional(storage.value),
                        "pods": _optional(pods.value),
                    }
                )
                saved = await context.services().quotas.replace(self.principal, self.project, form.spec())
            except Exception as exc:
                errors.show(exc)
                return
            ui.notify(self.t("projects.quota.done.saved", name=self.project), type="positive")
            self.draw(saved)

        save.on_click(submit)

    def _count(self, errors: FieldErrors, field: str, value: int | None) -> ui.number:
        marker = f"quota-{self.project}-{field.replace('.', '-')}"
        with ui.column().classes("gap-1 w-full"):
            entry = ui.number(self.t("projects.quota.field.limit"), value=value, min=0, step=1)
            entry.classes("w-full").props(f'outlined dense data-testid="{marker}"').mark(marker)
            errors.slot(field)
        return entry

    def _figure(self, name: str, figure: Figure | None) -> None:
        if figure is None:
            self._usage(name, None, "")
            return
        said = self.t("projects.quota.used", used=figure.used, hard=figure.hard)
        self._usage(name, figure_fraction(figure), said)

    def _usage(self, name: str, full: float | None, said: str) -> None:
        """A bar and its words; without a limit, only "no limit"."""
        marker = f"quota-{self.project}-usage-{name}"
        with ui.column().classes("gap-0 w-full").mark(marker):
            if full is None:
                ui.label(self.t("projects.quota.unlimited")).classes("text-sm text-slate-500")
                return
            color = "negative" if full >= 1 else "warning" if full >= 0.8 else "primary"
            ui.linear_progress(value=full, show_value=False, size="8px", color=color).props(
                f'rounded aria-label="{said}"'
            )
            ui.label(said).classes("text-xs text-slate-600")
