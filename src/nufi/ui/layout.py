"""The frame of every dashboard page: a header with the person's name, the language switch and
sign-out, and a sidebar drawn from the declared pages (`nufi.ui.skeleton`): those at the top
(Monitoring, Alerts), those under Workloads (Deployments, Labs), and, for `nufi-admin` only, the admin-only
ones under Admin (Devices, Projects, Thermal, Audit)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import quote

from nicegui import ui

from nufi.auth import Principal
from nufi.ui.i18n import LANGUAGE_NAMES, LANGUAGES, Language, Translator
from nufi.ui.parts.moments import page_head

HOME_PATH = "/"
# Where a page's entry sits in the sidebar: at the top, under Workloads, or under Admin.
Section = Literal["main", "workloads", "admin"]
_SECTION_CLASSES = "text-xs uppercase text-slate-500 mt-6 mb-1 px-2"
_SIDEBAR_PX = 220
# The sidebar is fixed to the window, so below its height a long page (as a full-page capture or
# print shows it) would lose the sidebar's colour: the page beside an open sidebar (Quasar pads it
# by the sidebar's width) paints the same colour and border down to its end.
_SIDEBAR_CSS = (
    '<style>.q-page-container[style*="padding-left"]{background:linear-gradient(to right,'
    f"#f1f5f9 {_SIDEBAR_PX - 1}px,rgba(0,0,0,.12) {_SIDEBAR_PX - 1}px {_SIDEBAR_PX}px,"
    f"transparent {_SIDEBAR_PX}px)}}</style>"
)


def language_url(language: Language, back_to: str) -> str:
    return f"/ui/language?set={language}&next={quote(back_to, safe='')}"


@dataclass(frozen=True)
class NavEntry:
    """A page's entry in the sidebar: its label (a call of the translator, so the key is written
    where it is used) and its Material icon."""

    label: Callable[[Translator], str]
    icon: str


class Listed(Protocol):
    """What the sidebar reads of a declared page (`nufi.ui.skeleton.Page`)."""

    @property
    def path(self) -> str: ...
    @property
    def nav(self) -> NavEntry | None: ...
    @property
    def section(self) -> Section: ...
    @property
    def admin_only(self) -> bool: ...


class Frame:
    """The frame drawn around one page; its language links bring the person back to the page."""

    def __init__(self, links: dict[Language, ui.link]) -> None:
        self._links = links

    def returns_to(self, path: str) -> None:
        """Let the language links come back to `path` (the page moved to another URL of itself)."""
        for language, link in self._links.items():
            link.props["href"] = language_url(language, path)
            link.update()


def frame(principal: Principal, t: Translator, pages: Sequence[Listed], *, current: str) -> Frame:
    """Header and sidebar for a page at path `current` (its query included)."""
    ui.page_title(t("app.title"))
    page_head(t.language)
    links: dict[Language, ui.link] = {}
    with ui.header().classes("items-center justify-between bg-slate-800 text-white px-4"):
        with ui.row().classes("items-center gap-2"):
            ui.icon("memory").classes("text-2xl")
            ui.label(t("app.title")).classes("text-lg font-semibold")
        with ui.row().classes("items-center gap-4"):
            with (
                ui.row()
                .classes("items-center gap-1")
                .props(f'role="group" aria-label="{t("header.language")}"')
            ):
                for option in LANGUAGES:
                    link = ui.link(LANGUAGE_NAMES[option], language_url(option, current))
                    # Each language's own name, in that language on every page: not the page's text.
                    link.classes("text-white no-underline px-1").props(f'lang="{option}" data-verbatim')
                    if option == t.language:
                        link.classes("font-bold underline")
                    links[option] = link
            ui.label(principal.username).classes("font-medium").props('data-testid="user-name"')
            with ui.element("form").props('method="post" action="/auth/logout"'):
                ui.button(t("header.sign_out")).props('type="submit" flat no-caps color="white"')
    shown = [page for page in pages if page.nav is not None and (principal.is_admin or not page.admin_only)]
    here = current.split("?", 1)[0]
    ui.add_head_html(_SIDEBAR_CSS)
    with ui.left_drawer(value=True).classes("bg-slate-100").props(f"width={_SIDEBAR_PX} bordered"):
        for section in ("main", "workloads", "admin"):
            entries = [page for page in shown if page.section == section]
            if entries and section != "main":
                ui.label(_section_label(t, section)).classes(_SECTION_CLASSES)
            for page in entries:
                _nav(t, page, here)
    return Frame(links)


def _section_label(t: Translator, section: Section) -> str:
    return t("nav.workloads") if section == "workloads" else t("nav.admin")


def _nav(t: Translator, page: Listed, here: str) -> None:
    assert page.nav is not None
    path = page.path
    active = here == path or (path != HOME_PATH and here.startswith(path))
    with (
        ui.link(target=path).classes("no-underline text-slate-800 w-full").mark(f"nav-{path}"),
        ui.row().classes("items-center gap-2 rounded px-2 py-1 w-full" + (" bg-slate-300" if active else "")),
    ):
        ui.icon(page.nav.icon)
        ui.label(page.nav.label(t))


def forbidden(t: Translator) -> None:
    """What a non-admin sees on an admin page (the services refuse them anyway)."""
    with ui.column().classes("items-start gap-3 p-8 max-w-xl"):
        ui.icon("block").classes("text-5xl text-red-700")
        ui.label(t("forbidden.title")).classes("text-2xl font-semibold").props('data-testid="forbidden"')
        ui.label(t("forbidden.body"))
        ui.link(t("forbidden.back"), HOME_PATH)
