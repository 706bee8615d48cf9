"""What the Deployments and Labs pages share: the project selector (remembered in the URL), the
errors shown beside the field they name, a status chip, ages with the exact time in their tooltip,
and the accelerator a row asks for, named as a person knows it.

The pages call the services with the signed-in principal, as the REST API does; the services read the
watch-fed cluster cache, so re-reading a list every few seconds while a page is open is cheap.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from nicegui import ui

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.errors import told
from nufi.ui.parts.moments import utc_text
from nufi.workloads.kube_reasons import kubernetes_words
from nufi.workloads.projects.service import Project

TIMES = "\N{MULTIPLICATION SIGN}"

# How often an open list reads its workloads again.
REFRESH_SECONDS = 3.0

# Per status, deployments' and labs' alike: its Quasar colour, and an icon beside the word so the
# status does not rest on colour alone.
STATUS_LOOKS: dict[str, tuple[str, str]] = {
    "Ready": ("positive", "check_circle"),
    "Starting": ("info", "autorenew"),
    "Pending": ("warning", "hourglass_empty"),
    "Degraded": ("orange", "warning"),
    "Error": ("negative", "error"),
    "ScaledDown": ("grey", "pause_circle"),
    "Stopped": ("grey", "stop_circle"),
}
UNKNOWN_LOOK = ("grey", "help_outline")

_Item = TypeVar("_Item")


def project_url(path: str, project: str) -> str:
    return f"{path}?project={quote(project, safe='')}"


def chosen_project(projects: Sequence[Project], asked: str) -> str | None:
    """The project the URL names when the person may see it, else their first one."""
    names = [p.name for p in projects]
    if asked in names:
        return asked
    return names[0] if names else None


def project_selector(t: Translator, path: str, projects: Sequence[Project], chosen: str) -> None:
    """A drop-down of the person's projects; choosing one reloads the page with it in the URL, so a
    link or a reload keeps it."""
    options = {p.name: p.name for p in projects}
    select = ui.select(
        options,
        value=chosen,
        label=t("workloads.project"),
        on_change=lambda event: ui.navigate.to(project_url(path, str(event.value))),
    )
    select.classes("min-w-[16rem]").props('outlined dense data-testid="project-select"').mark(
        "project-select"
    )


def not_offered(t: Translator, asked: str, chosen: str) -> None:
    """Said when the URL names a project the person cannot see (absent, or not theirs): which one is
    shown instead. Absent and not theirs read the same, so project names do not leak."""
    if asked and asked != chosen:
        ui.label(t("workloads.project_not_offered", asked=asked, chosen=chosen)).classes(
            "text-amber-800"
        ).mark("project-not-offered")


def no_projects(t: Translator) -> None:
    """What someone who is a member of no project sees instead of a list."""
    with ui.card().classes("max-w-xl p-6 gap-2").props("flat bordered").mark("no-projects"):
        ui.icon("folder_off").classes("text-4xl text-slate-500")
        ui.label(t("workloads.no_projects.title")).classes("text-lg font-semibold").props(
            'data-testid="no-projects"'
        )
        ui.label(t("workloads.no_projects.body")).classes("text-slate-700")


def created(created_at: str | None) -> datetime | None:
    """`created_at` (RFC 3339, as Kubernetes writes it) as an instant; None when absent or unreadable."""
    if not created_at:
        return None
    try:
        then = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return then if then.tzinfo is not None else then.replace(tzinfo=UTC)


# The units an age is told in, largest first: days, hours, minutes, seconds.
AgeUnit = Literal["d", "h", "m", "s"]
_UNITS: tuple[tuple[AgeUnit, int], ...] = (("d", 86400), ("h", 3600), ("m", 60))


def elapsed(then: datetime, now: datetime | None = None) -> tuple[AgeUnit, int]:
    """How long ago `then` was, in its largest whole unit: ("m", 12)."""
    seconds = max(int(((now or datetime.now(UTC)) - then).total_seconds()), 0)
    for unit, size in _UNITS:
        if seconds >= size:
            return unit, seconds // size
    return "s", seconds


def age(created_at: str | None, t: Translator, now: datetime | None = None) -> str:
    """How long ago `created_at` was: "45s", "12m", "3h", "2d" ("45초", "12분" in Korean)."""
    then = created(created_at)
    if then is None:
        return "—"
    unit, count = elapsed(then, now)
    return t(f"workloads.age.{unit}", n=count)


def age_cells(t: Translator, created_at: str | None) -> dict[str, str]:
    """A row's age, and the instant behind it for the tooltip (`created`, ISO; `created_utc`, its UTC
    text until the page's script shows it on the reader's clock)."""
    then = created(created_at)
    return {
        "age": age(created_at, t),
        "created": then.isoformat() if then else "",
        "created_utc": utc_text(then) if then else "",
    }


def age_slot(t: Translator) -> str:
    """The age, with the exact time it counts from on the reader's clock in its tooltip: a `<time
    data-local>` the page's script (`moments`) rewrites when the tooltip puts it on the page."""
    created_label = html.escape(t("workloads.created"))
    return (
        """
<q-td :props="props">
  <span :data-created="props.row.created">{{ props.row.age }}
    <q-tooltip v-if="props.row.created" class="text-body2">"""
        + created_label
        + """ <time data-local :datetime="props.row.created" :title="props.row.created_utc">{{
        props.row.created_utc }}</time>
    </q-tooltip>
  </span>
</q-td>
"""
    )


def accelerator_text(names: dict[str, str], device_type: str | None, count: int | None) -> str:
    """ "HyperAccel LPU x 2" (with a multiplication sign): the type's name where it is known, else its id."""
    if not device_type:
        return "—"
    return f"{names.get(device_type, device_type)} {TIMES} {count}"


async def type_names(principal: Principal) -> dict[str, str]:
    """Every catalog type's name by id (a row may name a type no node offers any more); empty when the
    catalog cannot be read, the rows then showing ids."""
    try:
        types = await context.services().catalog.list(principal)
    except NufiError:
        return {}
    return {device_type.id: device_type.name for device_type in types}


def status_text(t: Translator, status: str) -> str:
    key = f"workloads.status.{status}"
    try:
        return t(key)
    except KeyError:
        return status


def status_slot(field: str = "status") -> str:
    """A table cell showing the row's status as a coloured chip with its word and an icon
    (`status_color`, `status_text`, `status_icon`), the status itself in `data-status`."""
    return f"""
<q-td :props="props">
  <q-chip dense square :color="props.row.status_color" text-color="white" :icon="props.row.status_icon"
    :label="props.row.status_text" :data-status="props.row.{field}" class="q-ma-none" />
</q-td>
"""


def status_cells(t: Translator, status: str) -> dict[str, str]:
    color, icon = STATUS_LOOKS.get(status, UNKNOWN_LOOK)
    return {
        "status": status,
        "status_text": status_text(t, status),
        "status_color": color,
        "status_icon": icon,
    }


def reason_slot() -> str:
    """The Pending reason (or what broke) in full, wrapped rather than cut; Kubernetes' own words it
    was read from in a tooltip, for whoever looks further (they are English)."""
    return """
<q-td :props="props" style="white-space: normal; min-width: 16rem; max-width: 32rem">
  <span :class="props.row.reason ? 'text-grey-9' : 'text-grey-5'"
    :title="props.row.reason_source || null">{{ props.row.reason || '—' }}</span>
</q-td>
"""


def reason_cells(t: Translator, reason: Message | None) -> dict[str, str]:
    """A row's reason in the reader's language, and Kubernetes' words behind it (for the tooltip)."""
    if reason is None:
        return {"reason": "", "reason_source": ""}
    return {"reason": t.message(reason.code, reason.params), "reason_source": kubernetes_words(reason) or ""}


def workload_cells(
    t: Translator, name: str, status: str, reason: Message | None, created_at: str | None
) -> dict[str, str]:
    """The cells every workload's row has, of either kind: its name, status, reason and age."""
    return {"name": name, **status_cells(t, status), **reason_cells(t, reason), **age_cells(t, created_at)}


class FieldErrors:
    """Errors of one form: a label under each field (`slot`) and one at the top for the rest."""

    def __init__(self, t: Translator, prefix: str) -> None:
        self.t = t
        self.prefix = prefix
        self.top = ui.column().classes("gap-0 w-full").mark(f"{prefix}-error")
        self.fields: dict[str, ui.label] = {}

    def slot(self, field: str) -> None:
        """Place the error label of `field` here (right under its input)."""
        label = ui.label("").classes("text-negative text-caption -mt-1").mark(f"{self.prefix}-error-{field}")
        label.props('role="alert"')
        label.set_visibility(False)
        self.fields[field] = label

    def clear(self) -> None:
        self.top.clear()
        for label in self.fields.values():
            label.set_text("")
            label.set_visibility(False)

    def at(self, field: str | None, message: str) -> None:
        """`message` beside the field `field` names (its closest registered parent), else at the top."""
        slot = self._slot_for(field)
        if slot is None:
            with self.top:
                ui.label(message).classes("text-negative")
            return
        shown = slot.text
        slot.set_text(f"{shown} {message}".strip() if shown else message)
        slot.set_visibility(True)

    def show(self, exc: Exception) -> None:
        """What went wrong, in the person's language above, the service's words beside the fields."""
        self.clear()
        shown = told(self.t, exc, form=True)
        with self.top:
            ui.label(shown.headline).classes("text-negative font-medium")
        for field, message in shown.fields:
            self.at(field, message)

    def _slot_for(self, field: str | None) -> ui.label | None:
        if not field:
            return None
        parts = field.split(".")
        for length in range(len(parts), 0, -1):
            found = self.fields.get(".".join(parts[:length]))
            if found is not None:
                return found
        return None


def problem_text(t: Translator, exc: Exception) -> str:
    """One line for an error that belongs to no field (a list that cannot be read, a row action)."""
    return told(t, exc).line


def as_int(value: object) -> int | object:
    """A number input's value as an int (NiceGUI gives floats); what is not a whole number stays as it
    is, for the request's validation to name."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def confirm_delete(
    t: Translator,
    dialog: ui.dialog,
    *,
    title: str,
    body: str,
    delete: Callable[[], Awaitable[object]],
    done: str,
    after: Callable[[], Awaitable[None]],
) -> None:
    """Fill `dialog` with a confirmation naming what goes and open it: its confirm button calls
    `delete`, a refusal is shown beside the buttons, success closes it, says `done` and calls `after`."""
    with dialog, ui.card().classes("max-w-lg").mark("delete-dialog"):
        ui.label(title).classes("text-lg font-semibold").mark("dialog-title")
        ui.label(body)
        error = ui.label("").classes("text-negative text-caption").mark("delete-error")
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button(t("workloads.action.cancel"), on_click=dialog.close).props("flat no-caps")
            confirm = ui.button(t("workloads.action.delete")).props("no-caps color=negative")
            confirm.mark("delete-confirm")

    async def go() -> None:
        try:
            await delete()
        except Exception as exc:  # every refusal is shown; the log has the unexpected ones
            error.set_text(problem_text(t, exc))
            return
        dialog.close()
        ui.notify(done)
        await after()

    confirm.on_click(go)
    dialog.open()


async def shown_project(
    principal: Principal, t: Translator, path: str, asked: str, marker: str
) -> str | None:
    """The project a workload page lists, with the project selector and the note when the URL named
    another; None, with the empty state or the error shown, when there is none to list."""
    try:
        projects = await context.services().projects.visible_projects(principal)
    except NufiError as exc:
        ui.label(problem_text(t, exc)).classes("text-negative").mark(marker)
        return None
    chosen = chosen_project(projects, asked)
    if chosen is None:
        no_projects(t)
        return None
    project_selector(t, path, projects, chosen)
    not_offered(t, asked, chosen)
    return chosen


def workload_table(
    t: Translator, columns: list[dict[str, Any]], *, marker: str, empty: str, actions: str
) -> tuple[ui.label, ui.table]:
    """A workload list: the line that says why it could not be read (hidden until then), and the
    table with the status chip, the age with its time, the reason in full, the row's actions and its
    empty state."""
    error = ui.label("").classes("text-negative").mark(marker)
    error.set_visibility(False)
    table = ui.table(columns=columns, rows=[], row_key="name").classes("w-full")
    table.props(f'flat bordered data-testid="{marker.removesuffix("-error")}-table"')
    table.add_slot("body-cell-status", status_slot())
    table.add_slot("body-cell-reason", reason_slot())
    table.add_slot("body-cell-age", age_slot(t))
    table.add_slot("body-cell-actions", actions)
    table.add_slot("no-data", f'<div class="text-grey-7">{html.escape(empty)}</div>')
    return error, table


async def fill_table(
    t: Translator,
    error: ui.label,
    table: ui.table,
    read: Callable[[], Awaitable[Sequence[_Item]]],
    row: Callable[[_Item], dict[str, Any]],
) -> Sequence[_Item] | None:
    """Read a workload list into `table` (its rows replaced in place); None, with `error` saying why,
    when it cannot be read (the rows shown before stay)."""
    try:
        items = await read()
    except Exception as exc:  # every refusal is shown; the log has the unexpected ones
        error.set_text(problem_text(t, exc))
        error.set_visibility(True)
        return None
    error.set_visibility(False)
    table.rows = [row(item) for item in items]
    table.update()
    return items
