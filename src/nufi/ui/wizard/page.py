"""Admin → Devices → Add Device: a three-step wizard at `/admin/devices/new?step=1|2|3&draft=<id>`.

Step 1 names the type and its resource key, checked live against the cluster as it is typed; step 2
maps the series' labels and writes the expressions, each with a Test against the real Prometheus;
step 3 shows everything and saves it through the catalog (the same checks run again there).

The step and the draft's id are in the URL, so a reload, the browser's back button or a shared link
lands on them. The draft itself is kept in NuFi's database (`wizard_drafts`, through
`Services.wizard_drafts`), not in the server's memory: replicas share nothing but the database, so a
reload answered by another replica, or by this one after a restart, resumes the wizard at its step
with what was typed. Changes are saved as they are made, coalesced while typing
(`nufi.ui.wizard.kept`) and always before the page moves to another step. Opening the wizard
without a draft starts one and redirects to its URL, so every browser tab gets a draft of its own
(two tabs are two wizards that do not overwrite each other). A draft belongs to the admin who
started it: another person's id, or one that was saved, started over or forgotten (drafts untouched
for 7 days are), opens a fresh draft with a note saying so. Save and Start over delete the draft.
The draft's fields are not put in the URL because PromQL makes URLs long and ends up in proxies'
logs and the browser's history; only the random id is.

Every error the catalog raises is shown next to the field it names (`field` of ValidationFailed or
Conflict), else at the top of the page; texts come from `nufi.ui.i18n` only.

The same steps edit a stored type at `/admin/devices/<id>/edit?step=N&draft=<id>` (admin only):
opening it without a draft starts one prefilled from the stored type, remembering its revision. The
id is read-only, and so is an official type's whole identity (name, vendor, resource key: only its
labels and metrics may change). Step 3's "Save changes" calls the catalog's `update` with the
revision the draft started from; when someone else saved the type meanwhile, the top of the page
says so with a Reload that reads the stored type into the draft again (their changes win; the
person applies theirs again), staying in the wizard. Success returns to the device list.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from nicegui import ui
from starlette.responses import RedirectResponse

from nufi.errors import NotFound, NufiError
from nufi.logging import get_logger
from nufi.ui import context
from nufi.ui.pages.devices import PATH as DEVICES_PATH
from nufi.ui.skeleton import Visit
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import EDIT_ID, complete, draft_of, is_edit, new_draft
from nufi.ui.wizard.form import STEPS, edit_url, step_url
from nufi.ui.wizard.kept import KeptDraft
from nufi.ui.wizard.view import WizardView

_log = get_logger("nufi.ui.wizard")


def _step(visit: Visit) -> int:
    step = visit.param("step", "1")
    return int(step) if step in {str(s) for s in STEPS} else 1


async def build_new(visit: Visit) -> RedirectResponse | None:
    """The wizard adding a new type, on the draft the URL names (a new one when it names none)."""
    who, draft, number = visit.who, visit.param("draft"), _step(visit)
    drafts = context.services().wizard_drafts
    try:
        values = await drafts.get(who.principal, draft) if draft else None
        if values is not None and is_edit(values):
            values = None  # an edit's draft is not a new type's
        if values is None:
            values = new_draft()
            draft_id = await drafts.create(who.principal, values)
            if not draft:
                # The tab's own draft, in the URL before anything is shown.
                return RedirectResponse(step_url(number, draft_id), status_code=303)
            number = 1  # an empty draft starts at the beginning
        else:
            draft_id = draft
    except NufiError as exc:
        visit.frame.returns_to(step_url(number))
        _unavailable(exc.text(visit.t.language))
        return None
    _open(visit, values, draft_id, number, missing=draft_id != draft, url=step_url)
    return None


async def build_edit(visit: Visit) -> RedirectResponse | None:
    """The wizard editing the stored type the path names, on the draft the URL names (a new one,
    from the stored type, when it names none)."""
    who, draft, number = visit.who, visit.param("draft"), _step(visit)
    device_type_id = visit.param("device_type_id")
    services = context.services()
    try:
        values = await services.wizard_drafts.get(who.principal, draft) if draft else None
        if values is not None and values.get(EDIT_ID) != device_type_id:
            values = None  # a draft of another type, or of a new one, is not this edit's
        if values is None:
            stored = await services.catalog.get(who.principal, device_type_id)
            values = draft_of(stored)
            draft_id = await services.wizard_drafts.create(who.principal, values)
            if not draft:
                return RedirectResponse(edit_url(device_type_id, number, draft_id), status_code=303)
            number = 1
        else:
            draft_id = draft
    except NotFound:
        visit.frame.returns_to(DEVICES_PATH)
        _unavailable(visit.t("wizard.edit_mode.not_found", id=device_type_id), "edit-not-found")
        return None
    except NufiError as exc:
        visit.frame.returns_to(DEVICES_PATH)
        _unavailable(exc.text(visit.t.language))
        return None
    url = partial(edit_url, device_type_id)
    _open(visit, values, draft_id, number, missing=draft_id != draft, url=url)
    return None


def _open(
    visit: Visit,
    values: dict[str, str],
    draft_id: str,
    number: int,
    *,
    missing: bool,
    url: Callable[[int, str], str],
) -> None:
    """The wizard at step `number` of the draft `draft_id` (`missing`: the URL named another one)."""
    who = visit.who
    drafts = context.services().wizard_drafts
    visit.frame.returns_to(url(number, draft_id))
    kept = KeptDraft(draft_id, dict(complete(values)), partial(drafts.save, who.principal, draft_id))
    view = WizardView(who, visit.t, kept, number)
    view.render()
    # A change typed just before the tab closes is not lost to the coalescing.
    ui.context.client.on_disconnect(partial(_flush_quietly, kept))
    if missing:
        view.say_draft_missing()
        ui.navigate.history.replace(url(number, draft_id))


def _unavailable(detail: str, marker: str = "error-top-message") -> None:
    with ui.column().classes("w-full max-w-4xl gap-4 p-2").mark("error-top"):
        ui.label(detail).classes(render.ERROR_CLASSES).mark(marker)


async def _flush_quietly(kept: KeptDraft) -> None:
    try:
        await kept.flush()
    except Exception:
        _log.warning("saving a wizard draft failed", exc_info=True)
