"""Admin → Projects: every project with its members, a page of `PAGE_SIZE` at a time; create one, add
and remove members, and delete one after a dry run has shown everything that would go with it.

A page's quotas are read in one list (`QuotaService.read_many`), never one read per project: a page
build must end within NiceGUI's response timeout however many projects there are.

Only `nufi-admin` sees this in the sidebar; anyone else opening the URL gets the page saying so, and
the project service refuses them anyway.
"""

from __future__ import annotations

import math

from nicegui import ui
from nicegui.events import ValueChangeEventArguments

from nufi.errors import NufiError
from nufi.ui import context
from nufi.ui.pages import deployments, labs
from nufi.ui.parts.project_quotas import QuotaEditor
from nufi.ui.parts.workload_forms import FieldErrors, problem_text, project_url
from nufi.ui.skeleton import Visit
from nufi.workloads.projects.service import Project, ProjectDeletion

PATH = "/admin/projects"
PAGE_SIZE = 20


async def build(visit: Visit) -> None:
    await ProjectsPage(visit).build()


def page_count(total: int) -> int:
    """How many pages `total` projects fill (one, empty, when there are none)."""
    return max(1, math.ceil(total / PAGE_SIZE))


def requested_page(text: str) -> int:
    """The page `?page=` asks for; anything that is not a positive number is the first."""
    # ASCII digits only (int() takes other scripts' too), and few of them (int() refuses thousands):
    # a page past the last shows the last.
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        return 1
    return max(int(text), 1)


def split_members(value: str) -> list[str]:
    """Usernames typed with commas, spaces or new lines between them."""
    return [part for part in value.replace(",", " ").split() if part]


class ProjectsPage:
    def __init__(self, visit: Visit) -> None:
        self.who = visit.who
        self.t = visit.t
        self.page = requested_page(visit.param("page"))
        self._dialog: ui.dialog | None = None

    async def build(self) -> None:
        ui.label(self.t("projects.title")).classes("text-2xl font-semibold")
        self._create_form()
        self.error = ui.label("").classes("text-negative").mark("projects-error")
        self.error.set_visibility(False)
        self.list = ui.column().classes("w-full max-w-4xl gap-3").mark("projects-list")
        self.pager = ui.row().classes("w-full max-w-4xl items-center gap-3").mark("projects-pager")
        await self.refresh()

    async def refresh(self) -> None:
        try:
            projects = await context.services().projects.visible_projects(self.who.principal)
            types = await context.services().catalog.list(self.who.principal)
        except Exception as exc:
            self.error.set_text(problem_text(self.t, exc))
            self.error.set_visibility(True)
            return
        self.error.set_visibility(False)
        pages = page_count(len(projects))
        self.page = min(self.page, pages)
        first = (self.page - 1) * PAGE_SIZE
        shown = projects[first : first + PAGE_SIZE]
        self.list.clear()
        with self.list:
            if not projects:
                ui.label(self.t("projects.empty")).classes("text-slate-600").mark("projects-empty")
            editors = [self._card(project) for project in shown]
        self._pager(first, len(shown), len(projects), pages)
        if not editors:
            return
        try:
            quotas = await context.services().quotas.read_many(self.who.principal, [p.name for p in shown])
        except Exception as exc:
            for editor in editors:
                editor.failed(exc)
            return
        for editor, quota in zip(editors, quotas, strict=True):
            editor.show(types, quota)

    def _pager(self, first: int, count: int, total: int, pages: int) -> None:
        """Which projects the page shows, and the way to the others when there are more."""
        self.pager.clear()
        if total == 0:
            return
        with self.pager:
            said = self.t("projects.page.showing", first=first + 1, last=first + count, total=total)
            ui.label(said).classes("text-sm text-slate-600").mark("projects-page")
            if pages > 1:

                async def turn(event: ValueChangeEventArguments[int | None]) -> None:
                    self.page = event.value or 1
                    await self.refresh()

                pagination = ui.pagination(1, pages, direction_links=True, value=self.page, on_change=turn)
                pagination.props(f'aria-label="{self.t("projects.page.label")}"').mark("projects-pagination")

    # -- create --------------------------------------------------------------------------------------

    def _create_form(self) -> None:
        with ui.card().classes("w-full max-w-4xl gap-2").props("flat bordered").mark("project-form"):
            ui.label(self.t("projects.create.title")).classes("text-lg font-semibold")
            errors = FieldErrors(self.t, "project")
            with ui.row().classes("w-full items-start gap-4 no-wrap"):
                with ui.column().classes("gap-1 w-64"):
                    name = ui.input(self.t("workloads.field.name"), placeholder="team-llm")
                    name.classes("w-full").props("outlined dense").mark("project-name")
                    errors.slot("name")
                with ui.column().classes("gap-1 grow"):
                    members = ui.input(self.t("projects.field.members"), placeholder="alice, bob")
                    members.classes("w-full").props("outlined dense").mark("project-members")
                    errors.slot("members")
                create = ui.button(self.t("projects.action.create"), icon="add").props("no-caps")
                create.classes("mt-1").mark("project-create")

        async def submit() -> None:
            errors.clear()
            try:
                created = await context.services().projects.create(
                    self.who.principal, str(name.value or "").strip(), split_members(str(members.value or ""))
                )
            except Exception as exc:
                errors.show(exc)
                return
            ui.notify(self.t("projects.done.created", name=created.name), type="positive")
            name.set_value("")
            members.set_value("")
            await self.refresh()

        create.on_click(submit)

    # -- one project ---------------------------------------------------------------------------------

    def _card(self, project: Project) -> QuotaEditor:
        """The project's card; its quota section is drawn by the editor returned, once read."""
        with ui.card().classes("w-full gap-2").props("flat bordered").mark(f"project-{project.name}"):
            with ui.row().classes("w-full items-center justify-between"):
                with ui.row().classes("items-center gap-3"):
                    ui.icon("folder").classes("text-xl text-slate-600")
                    ui.label(project.name).classes("text-lg font-semibold font-mono")
                    ui.link(self.t("nav.deployments"), project_url(deployments.PATH, project.name)).classes(
                        "text-sm"
                    )
                    ui.link(self.t("nav.labs"), project_url(labs.PATH, project.name)).classes("text-sm")
                ui.button(
                    self.t("projects.action.delete"),
                    icon="delete",
                    on_click=lambda: self.ask_delete(project.name),
                ).props("flat no-caps color=negative").mark(f"delete-{project.name}")
            with ui.row().classes("items-center gap-1 flex-wrap").mark(f"members-{project.name}"):
                ui.label(self.t("projects.members")).classes("text-sm text-slate-600 mr-2")
                if not project.members:
                    ui.label(self.t("projects.no_members")).classes("text-sm text-slate-500")
                for member in project.members:
                    self._member_chip(project.name, member)
            errors = FieldErrors(self.t, f"member-{project.name}")
            with ui.row().classes("items-start gap-2"):
                with ui.column().classes("gap-1"):
                    username = ui.input(self.t("projects.field.username"), placeholder="alice")
                    username.classes("w-56").props("outlined dense").mark(f"add-member-{project.name}")
                    errors.slot("username")
                add = ui.button(self.t("projects.action.add_member"), icon="person_add").props(
                    "outline no-caps"
                )
                add.classes("mt-1").mark(f"add-member-button-{project.name}")
            ui.separator()
            editor = QuotaEditor(self.who.principal, self.t, project.name)

        async def add_member() -> None:
            errors.clear()
            try:
                await context.services().projects.add_member(
                    self.who.principal, project.name, str(username.value or "").strip()
                )
            except Exception as exc:
                errors.show(exc)
                return
            ui.notify(self.t("projects.done.added", user=username.value, name=project.name))
            await self.refresh()

        add.on_click(add_member)
        return editor

    def _member_chip(self, project: str, member: str) -> None:
        async def remove() -> None:
            try:
                await context.services().projects.remove_member(self.who.principal, project, member)
            except Exception as exc:
                ui.notify(problem_text(self.t, exc), type="negative", multi_line=True)
                return
            ui.notify(self.t("projects.done.removed", user=member, name=project))
            await self.refresh()

        with ui.row().classes("items-center gap-0 rounded-full bg-slate-200 pl-3 pr-1"):
            ui.label(member).classes("text-sm")
            label = self.t("projects.action.remove_member", user=member)
            ui.button(icon="close", on_click=remove).props(
                f'flat round dense size="xs" aria-label="{label}"'
            ).mark(f"remove-{project}-{member}")

    # -- delete, after the dry run -------------------------------------------------------------------

    async def ask_delete(self, name: str) -> None:
        try:
            plan = await context.services().projects.delete(self.who.principal, name, dry_run=True)
        except Exception as exc:
            ui.notify(problem_text(self.t, exc), type="negative", multi_line=True)
            return
        if self._dialog is not None:
            self._dialog.delete()
        with (
            ui.dialog() as dialog,
            ui.card().classes("min-w-[28rem] max-w-2xl").mark("project-delete-dialog"),
        ):
            ui.label(self.t("projects.delete.title", name=name)).classes("text-lg font-semibold").mark(
                "dialog-title"
            )
            self._dry_run(plan)
            error = ui.label("").classes("text-negative text-caption").mark("project-delete-error")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(self.t("workloads.action.cancel"), on_click=dialog.close).props("flat no-caps")
                confirm = ui.button(self.t("projects.delete.confirm", name=name)).props(
                    "no-caps color=negative"
                )
                confirm.mark("project-delete-confirm")
        self._dialog = dialog

        async def go() -> None:
            confirm.disable()
            try:
                await context.services().projects.delete(self.who.principal, name)
            except NufiError as exc:
                error.set_text(problem_text(self.t, exc))
                return
            finally:
                confirm.enable()
            dialog.close()
            ui.notify(self.t("projects.done.deleted", name=name))
            await self.refresh()

        confirm.on_click(go)
        dialog.open()

    def _dry_run(self, plan: ProjectDeletion) -> None:
        with ui.column().classes("gap-1 w-full").mark("dry-run"):
            ui.label(self.t("projects.delete.body", name=plan.project.name))
            if not plan.objects:
                ui.label(self.t("projects.delete.nothing")).classes("text-slate-600")
                return
            ui.label(self.t("projects.delete.objects", count=len(plan.objects))).classes("font-medium")
            with ui.column().classes("gap-0 max-h-64 overflow-auto w-full bg-slate-50 rounded p-2"):
                for item in plan.objects:
                    ui.label(f"{item.kind}/{item.name}").classes("font-mono text-sm").mark("dry-run-object")
