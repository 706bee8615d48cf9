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

import asyncio
from collections.abc import Callable
from functools import partial

from nicegui import background_tasks, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from nufi.devices.catalog import SaveOutcome
from nufi.errors import Conflict, NotFound, NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.ui import context
from nufi.ui.i18n import text
from nufi.ui.layout import DEVICES_PATH, forbidden, frame
from nufi.ui.parts.gate import Visitor, visitor
from nufi.ui.wizard import render
from nufi.ui.wizard.draft import (
    EDIT_ID,
    IDENTITY_SLOTS,
    MEMORY_SECOND,
    SLOTS,
    DraftErrors,
    complete,
    create_payload,
    draft_of,
    is_edit,
    is_official_edit,
    memory_mode,
    new_draft,
    second_memory_field,
    service_errors,
    slug_of,
    started_revision,
    update_payload,
)
from nufi.ui.wizard.form import EDIT_PATH, STEPS, WIZARD_PATH, edit_url, step_url
from nufi.ui.wizard.kept import KeptDraft
from nufi.ui.wizard.metrics_step import MetricsStep

__all__ = ["EDIT_PATH", "WIZARD_PATH", "edit_url", "register", "step_url"]

KEY_CHECK_DELAY_SECONDS = 0.4
_log = get_logger("nufi.ui.wizard")


def register() -> None:
    @ui.page(WIZARD_PATH)
    async def wizard_page(request: Request, step: str = "1", draft: str = "") -> RedirectResponse | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        number = int(step) if step in {str(s) for s in STEPS} else 1
        if not who.principal.is_admin:
            frame(who.principal, who.language, current=step_url(number))
            forbidden(who.language)
            return None
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
            frame(who.principal, who.language, current=step_url(number))
            _unavailable(exc.detail)
            return None
        _open(request, who, values, draft_id, number, missing=draft_id != draft, url=step_url)
        return None

    @ui.page(EDIT_PATH)
    async def edit_page(
        request: Request, device_type_id: str, step: str = "1", draft: str = ""
    ) -> RedirectResponse | None:
        who = await visitor(request)
        if isinstance(who, RedirectResponse):
            return who
        number = int(step) if step in {str(s) for s in STEPS} else 1
        if not who.principal.is_admin:
            frame(who.principal, who.language, current=edit_url(device_type_id, number))
            forbidden(who.language)
            return None
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
            frame(who.principal, who.language, current=DEVICES_PATH)
            missing = text(who.language, "wizard.edit_mode.not_found", id=device_type_id)
            _unavailable(missing, "edit-not-found")
            return None
        except NufiError as exc:
            frame(who.principal, who.language, current=DEVICES_PATH)
            _unavailable(exc.detail)
            return None
        _open(
            request,
            who,
            values,
            draft_id,
            number,
            missing=draft_id != draft,
            url=partial(edit_url, device_type_id),
        )
        return None


def _open(
    request: Request,
    who: Visitor,
    values: dict[str, str],
    draft_id: str,
    number: int,
    *,
    missing: bool,
    url: Callable[[int, str], str],
) -> None:
    """The wizard at step `number` of the draft `draft_id` (`missing`: the URL named another one)."""
    drafts = context.services().wizard_drafts
    frame(who.principal, who.language, current=url(number, draft_id))
    kept = KeptDraft(draft_id, dict(complete(values)), partial(drafts.save, who.principal, draft_id))
    view = WizardView(who, kept, number)
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


class WizardView(MetricsStep):
    """The wizard's page: the steps' frame, step 1 (identity) and step 3 (review and save)."""

    # -- the frame of every step ---------------------------------------------------------------------

    def render(self) -> None:
        with ui.column().classes("w-full max-w-4xl gap-4 p-2"):
            title = (
                self.t("wizard.edit_mode.title", name=self.draft.get("name", ""))
                if self.editing is not None
                else self.t("wizard.title")
            )
            ui.label(title).classes("text-2xl font-semibold").mark("wizard-title")
            with ui.row().classes("items-center gap-2").mark("wizard-steps"):
                for number, key in zip(
                    STEPS, ("wizard.step.identity", "wizard.step.metrics", "wizard.step.review"), strict=True
                ):
                    current = number == self.step
                    chip = ui.label(f"{number}. {self.t(key)}").classes(
                        "rounded px-2 py-1 " + ("bg-slate-800 text-white" if current else "bg-slate-200")
                    )
                    if current:
                        chip.mark("wizard-current-step")
            ui.label(self.t("wizard.step_of", step=self.step)).classes("text-sm text-slate-500")
            if self.editing is not None:
                ui.label(
                    self.t(
                        "wizard.edit_mode.editing",
                        id=self.editing,
                        revision=started_revision(self.draft),
                    )
                ).classes(render.NOTE_CLASSES).mark("edit-revision")
            self.top = ui.column().classes("w-full gap-1").mark("error-top")
            if self.step == 1:
                self.identity_step()
            elif self.step == 2:
                self.metrics_step()
            else:
                self.review_step()

    def say_draft_missing(self) -> None:
        if self.top is not None:
            with self.top:
                ui.label(self.t("wizard.draft.missing")).classes(render.NOTE_CLASSES).mark("draft-missing")

    # -- step 1: name, vendor, resource key ----------------------------------------------------------

    def identity_step(self) -> None:
        if is_official_edit(self.draft):
            ui.label(self.t("wizard.edit_mode.official")).classes(render.NOTE_CLASSES).mark("edit-official")
        self.field("name", "wizard.field.name")
        self.field("vendor", "wizard.field.vendor")
        self.id_input = self.field("id", "wizard.field.id", hint_key="wizard.hint.id")
        self.field(
            "resource_key",
            "wizard.field.resource_key",
            hint_key="wizard.hint.resource_key",
            on_change=lambda _: self.schedule_key_check(),
        )
        self.key_result = ui.column().classes("w-full gap-1").mark("key-result")
        if self.draft.get("resource_key", "").strip():
            self.schedule_key_check(delay=0)
        self.navigation(back=None, forward=lambda: self.go_on(2), forward_key="wizard.next")

    async def go_on(self, step: int) -> None:
        # A new type left without an id takes one made from its name, when the admin moves on rather
        # than while they type: rewriting a field under someone typing in the next one loses keys.
        if self.step == 1 and not self.editing and not self.draft.get("id", "").strip():
            slug = slug_of(self.draft.get("name", ""))
            if slug and self.id_input is not None:
                self.id_input.set_value(slug)
        await super().go_on(step)

    def schedule_key_check(self, delay: float = KEY_CHECK_DELAY_SECONDS) -> None:
        """Check the key once typing pauses for `delay`; a newer key cancels the check of an older one."""
        if self.key_task is not None:
            self.key_task.cancel()
        self.key_sequence += 1
        self.key_task = background_tasks.create(
            self.check_key(self.key_sequence, delay), name="wizard key check"
        )

    async def check_key(self, sequence: int, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        key = self.draft.get("resource_key", "").strip()
        area = self.key_result
        if area is None or sequence != self.key_sequence:
            return
        area.clear()
        if not key:
            return
        with area:
            ui.label(self.t("wizard.key.checking")).classes(render.NOTE_CLASSES).mark("key-checking")
        show: Callable[[], None]
        try:
            check = await context.services().catalog.check_resource_key(self.visitor.principal, key)
        except ValidationFailed as exc:
            problems = exc.extra.get("problems")
            listed = [str(p) for p in problems] if isinstance(problems, list) else []
            show = partial(render.key_invalid, self.language, exc.detail, listed)
        except NufiError as exc:
            show = partial(render.key_unreadable, self.language, exc.detail)
        else:
            show = partial(render.key_found, self.language, check)
        if sequence != self.key_sequence or area.is_deleted:
            return  # a newer key was typed meanwhile, or the page is gone
        area.clear()
        with area:
            show()

    # -- step 3: review and save ---------------------------------------------------------------------

    def review_step(self) -> None:
        ui.label(self.t("wizard.review.title")).classes("text-lg font-semibold")
        none = self.t("wizard.review.none")
        mode = memory_mode(self.draft)
        rows: list[tuple[str, str, str]] = [
            *((slot, f"wizard.field.{slot}", self.draft.get(slot, "")) for slot in IDENTITY_SLOTS),
            ("labels", "wizard.labels.title", ""),
            *(
                (f"labels.{n}", f"wizard.label.{n}", self.draft.get(f"labels.{n}", ""))
                for n in ("node", "device", "pod", "namespace")
            ),
            ("metrics", "wizard.metrics.title", ""),
            ("metrics.utilization", "wizard.metric.utilization", self.draft.get("metrics.utilization", "")),
            ("metrics.memory.mode", "wizard.metric.memory", self.t(f"wizard.memory.mode.{mode}")),
            ("metrics.memory.used", "wizard.memory.used", self.draft.get("metrics.memory.used", "")),
            (
                MEMORY_SECOND,
                "wizard.memory.total" if mode == "used_total" else "wizard.memory.free",
                self.draft.get(second_memory_field(self.draft), ""),
            ),
            ("metrics.memory.unit", "wizard.memory.unit", self.draft.get("metrics.memory.unit", "")),
            ("metrics.temperature", "wizard.metric.temperature", self.draft.get("metrics.temperature", "")),
            ("metrics.power", "wizard.metric.power", self.draft.get("metrics.power", "")),
        ]
        with ui.column().classes("w-full gap-1").mark("review"):
            for slot, label_key, value in rows:
                group = slot in ("labels", "metrics")
                with ui.row().classes("w-full items-baseline gap-4 no-wrap border-b py-1"):
                    ui.label(self.t(label_key)).classes(
                        "w-48 shrink-0 " + ("font-semibold" if group else "text-slate-600")
                    )
                    with ui.column().classes("gap-0 grow"):
                        if not group:
                            ui.label(value.strip() or none).classes("font-mono text-sm break-all").mark(
                                f"review-{slot}"
                            )
                        if slot in SLOTS:
                            self.error_slot(slot)
        with ui.row().classes("gap-4"):
            ui.link(self.t("wizard.edit.identity"), self.url(1))
            ui.link(self.t("wizard.edit.metrics"), self.url(2))
        # An admin may register a type before its device plugin or exporter is installed; the save
        # then records that the checks were bypassed.
        self.force = ui.checkbox(self.t("wizard.force")).mark("wizard-force")
        if self.editing is not None:
            self.navigation(back=2, forward=self.save_changes, forward_key="wizard.edit_mode.save")
        else:
            self.navigation(back=2, forward=self.save, forward_key="wizard.save")

    @property
    def forced(self) -> bool:
        return self.force is not None and bool(self.force.value)

    async def save(self) -> None:
        self.clear_errors()
        try:
            payload = create_payload(self.draft)
        except DraftErrors as exc:
            self.show_errors(exc.errors)
            return
        try:
            outcome = await context.services().catalog.create(
                self.visitor.principal, payload, force=self.forced
            )
        except NufiError as exc:
            self.show_errors(service_errors(exc))
            return
        except Exception:  # never a stack trace on the page; the log has it
            _log.exception("saving a device type from the wizard failed")
            self.show_errors({None: self.t("wizard.error.unexpected")})
            return
        await self.saved(self.t("wizard.saved", name=outcome.device_type.name))

    async def save_changes(self) -> None:
        """The edit, over the revision the draft started from; a newer one is a conflict with a Reload."""
        editing = self.editing
        if editing is None:
            return
        self.clear_errors()
        try:
            payload = update_payload(self.draft)
        except DraftErrors as exc:
            self.show_errors(exc.errors)
            return
        outcome: SaveOutcome
        try:
            outcome = await context.services().catalog.update(
                self.visitor.principal, editing, payload, force=self.forced
            )
        except Conflict as exc:
            if "current_revision" in exc.extra:
                self.say_stale(exc.extra["current_revision"])
            else:
                self.show_errors(service_errors(exc))
            return
        except NufiError as exc:
            self.show_errors(service_errors(exc))
            return
        except Exception:
            _log.exception("saving an edited device type from the wizard failed", device_type=editing)
            self.show_errors({None: self.t("wizard.error.unexpected")})
            return
        changed = outcome.device_type
        await self.saved(self.t("wizard.edit_mode.saved", name=changed.name, revision=changed.revision))

    async def saved(self, message: str) -> None:
        """Done: the draft deleted, the device list with `message`."""
        try:
            await context.services().wizard_drafts.delete(self.visitor.principal, self.draft.id)
        except Exception:  # saved all the same; the draft is forgotten after DRAFT_LIFETIME
            _log.warning("deleting a saved wizard draft failed", exc_info=True)
        ui.notify(message, type="positive")
        ui.navigate.to(DEVICES_PATH)

    def say_stale(self, current: object) -> None:
        if self.top is None:
            return
        with self.top, ui.column().classes("w-full gap-1").mark("edit-stale"):
            ui.label(
                self.t("wizard.edit_mode.stale", current=current, started=started_revision(self.draft))
            ).classes(render.ERROR_CLASSES).mark("edit-stale-message")
            ui.button(self.t("wizard.edit_mode.reload"), icon="refresh", on_click=self.reload_stored).props(
                "outline no-caps"
            ).mark("edit-reload")

    async def reload_stored(self) -> None:
        """The stored type, read again into this draft (their changes win), at this step again."""
        editing = self.editing
        if editing is None:
            return
        self.clear_errors()
        try:
            stored = await context.services().catalog.get(self.visitor.principal, editing)
        except NufiError as exc:
            self.show_errors({None: exc.detail})
            return
        fresh = draft_of(stored)
        for key in [key for key in self.draft if key not in fresh]:
            del self.draft[key]
        for key, value in fresh.items():
            self.draft[key] = value
        if await self.kept():
            ui.navigate.to(self.url(self.step))
