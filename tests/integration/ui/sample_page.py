"""A page the product does not have, declared by the simulated-user tests' main file only: what a new
page module looks like, and the proof that sign-in, the frame, the sidebar entry and the admin gate
come from the skeleton alone."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from nicegui import ui

from nufi.auth import Principal
from nufi.ui.i18n import Translator
from nufi.ui.parts.workload_forms import FieldErrors, age_cells, reason_cells, status_cells
from nufi.ui.parts.workload_page import KindText, RowButton, WorkloadKind, WorkloadPage
from nufi.ui.skeleton import NavEntry, Page, Visit

SAMPLE_PATH = "/admin/sample"


async def build(visit: Visit) -> None:
    ui.label(visit.t("charts.title")).mark("sample-title")
    ui.label(f"{visit.who.principal.username} {visit.param('say', '-')}").mark("sample-content")


SAMPLE_PAGE = Page(
    SAMPLE_PATH,
    build,
    NavEntry(lambda t: t("charts.title"), "science"),
    section="admin",
    admin_only=True,
)


SLOW_PATH = "/admin/slow"


async def build_slow(visit: Visit) -> None:
    """A page whose build waits, with `?hold=1`, for a dependency that never answers (an event nobody
    sets), after drawing a first element; without it, it is built at once."""
    ui.label("drawn before the wait").mark("slow-first")
    if visit.param("hold"):
        await asyncio.Event().wait()
    ui.label("drawn after the wait").mark("slow-done")


SLOW_PAGE = Page(SLOW_PATH, build_slow, section="admin", admin_only=True)


# A third workload kind the product does not have: samples, kept in memory per project. Its page is
# the one workload page over this description alone.
SAMPLES_PATH = "/samples"


@dataclass
class Sample:
    name: str
    status: str
    colour: str
    created_at: str


SAMPLES: dict[str, list[Sample]] = {}
# What the kind was asked: ("ping", project, name) per Ping, ("create", project, body) per create.
ASKED: list[tuple[str, str, object]] = []


async def _ping(page: WorkloadPage[Sample, ui.input], name: str) -> None:
    ASKED.append(("ping", page.project, name))


class Samples(WorkloadKind[Sample, ui.input]):
    path = SAMPLES_PATH
    marker = "samples"
    form_marker = "sample-form"
    prefix = "smp"
    create_icon = "bolt"
    name_placeholder = "a-sample"
    buttons = ((RowButton("labs.action.start", "bolt", "ping"), _ping),)

    def text(self, t: Translator, what: KindText, **params: object) -> str:
        return t(f"labs.{what}", **params)

    def columns(self, t: Translator) -> dict[str, str]:
        return {"name": "Name", "colour": "Colour", "status": "Status", "age": "Age"}

    async def read(self, principal: Principal, project: str) -> Sequence[Sample]:
        return list(SAMPLES.get(project, []))

    def row(self, t: Translator, names: dict[str, str], item: Sample) -> dict[str, Any]:
        return {
            "name": item.name,
            "colour": item.colour,
            **status_cells(t, item.status),
            **reason_cells(t, None),
            **age_cells(t, item.created_at),
        }

    async def delete(self, principal: Principal, project: str, name: str) -> None:
        SAMPLES[project] = [sample for sample in SAMPLES.get(project, []) if sample.name != name]

    def delete_body(self, t: Translator, project: str) -> str:
        return f"from {project}"

    async def fields(self, page: WorkloadPage[Sample, ui.input], errors: FieldErrors) -> ui.input:
        with ui.column().classes("gap-1"):
            colour = page.cell(ui.input("Colour"), errors, "colour", "colour")
        await page.accelerator_fields(errors)
        return colour

    def request(self, t: Translator, errors: FieldErrors, own: ui.input) -> dict[str, Any] | None:
        if not own.value:
            errors.at("colour", "a sample needs a colour")
            return None
        return {"colour": own.value}

    async def create(self, principal: Principal, project: str, body: dict[str, Any]) -> str:
        ASKED.append(("create", project, body))
        SAMPLES.setdefault(project, []).append(
            Sample(body["name"], "Starting", body["colour"], datetime.now(UTC).isoformat())
        )
        return str(body["name"])


async def build_samples(visit: Visit) -> None:
    await WorkloadPage(visit, Samples()).build(visit.param("project"))


SAMPLES_PAGE = Page(SAMPLES_PATH, build_samples, section="workloads")
