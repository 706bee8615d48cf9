"""A VS Code lab in a real browser (Debian's Chromium) against a running sandbox, whose kubelet runs the
real code-server: from the Labs page a member makes a VS Code lab on an LPU and opens it, and through
NuFi on the lab's own origin the workbench renders; a terminal opened in it prints the LPU the lab's pod
holds; a file saved in the editor is there again after the lab is stopped and started (its home volume);
and the page's "last active" moves once the workbench was used. The whole walk runs on the Korean
dashboard; the English one is photographed around a workbench that was opened.
code-server checks a socket's origin itself: a bearer caller, whom NuFi lets through from anywhere, is
refused from a foreign origin. Screenshots under test-results/dashboard/ (`<language>-vscode-*`)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.async_api import Browser, Locator, Page, expect
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from e2e.browser_support import LOCALES, shot, sign_in, speaks
from e2e.e2e_sandbox_support import SandboxRun, bearer, token
from e2e.workloads.test_e2e_workloads_browser import choose_the_lpu
from nufi.ui.i18n import Language, text
from support.polling import until

from .labs_support import READY_WITHIN, registered

READY_MS = 120_000
WORKBENCH_MS = 90_000
LAB = "code"
NOTE = "notes.txt"
# A line no lab starts with, typed in the editor and read back after the restart.
NOTE_TEXT = "kept on the home volume 7f3a"
# Where code-server's workbench opens its socket, after its build's stable path under the lab's.
SOCKET_QUERY = "?reconnectionToken=walk&reconnection=false&skipWebSocketFrames=false"


@pytest.fixture(scope="module")
async def admin(sandbox: SandboxRun) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi's API as the admin, the LPU registered."""
    state = sandbox.state
    headers = bearer(token(state, "admin", "admin"))
    async with httpx.AsyncClient(base_url=state["nufi_url"], headers=headers, timeout=30.0) as api:
        await until(partial(registered, api), READY_WITHIN, every=1.0, what="the LPU registered")
        yield api


def lab_row(page: Page) -> Locator:
    return page.get_by_test_id("labs-table").get_by_role("row").filter(has_text=LAB)


async def make_the_lab(page: Page, language: Language) -> None:
    """The Labs page's form: a VS Code lab named LAB on one LPU, Ready."""
    await page.get_by_label(text(language, "workloads.field.name"), exact=True).fill(LAB)
    await page.get_by_role("button", name="VS Code", exact=True).click()
    await choose_the_lpu(page, "lab-accelerator")
    await page.get_by_role("button", name=text(language, "labs.action.create")).click()
    await expect(lab_row(page)).to_contain_text(text(language, "workloads.status.Ready"), timeout=READY_MS)
    await expect(lab_row(page)).to_contain_text("VS Code")


async def open_the_workbench(page: Page, origin: str, project: str) -> Page:
    """Open the lab from its row: VS Code's workbench, on the lab's own origin, its home in Explorer."""
    async with page.context.expect_page() as opened:
        await page.get_by_test_id(f"open-{LAB}").click()
    lab = await opened.value
    await expect(lab).to_have_url(re.compile(re.escape(f"{origin}/labs/{project}/{LAB}/")), timeout=60_000)
    await expect(lab.locator(".monaco-workbench")).to_be_visible(timeout=WORKBENCH_MS)
    await expect(lab.locator(".explorer-folders-view")).to_be_visible(timeout=WORKBENCH_MS)
    return lab


def home_of(lab: Page) -> Path:
    """The lab's home on this machine: code-server opens it as `?folder=`, the claim's directory the dev
    cluster gives the container."""
    folders = parse_qs(urlsplit(lab.url).query).get("folder")
    assert folders, lab.url
    return Path(folders[0])


async def echo_the_lpu(lab: Page) -> None:
    """A terminal opened in the workbench (Ctrl+`) runs `echo $LPU_VISIBLE_DEVICES`, into NOTE too: the
    terminal draws on a canvas, so what it printed is read back from the file in the editor."""
    terminal = lab.locator(".terminal-wrapper.active .xterm")
    note = home_of(lab) / NOTE

    async def opened() -> bool:
        # Keys pressed while the workbench still registers its commands do nothing: pressed again.
        await lab.keyboard.press("Control+Backquote")
        return await terminal.is_visible()

    async def echoed() -> bool:
        # A line typed before the terminal's shell has started is lost: typed again until the file is there.
        if note.is_file() and "LPU=" in note.read_text():
            return True
        await terminal.click()
        await lab.keyboard.type(f"echo LPU=$LPU_VISIBLE_DEVICES | tee {NOTE}")
        await lab.keyboard.press("Enter")
        return False

    await until(opened, within=60, every=2.0, what="a terminal opened")
    await until(echoed, within=60, every=5.0, what=f"the terminal wrote {note}")
    row = lab.locator(".explorer-folders-view .monaco-list-row", has_text=NOTE)

    async def listed() -> bool:
        # The Explorer learns of a file from code-server's watcher; its Refresh action asks directly.
        if await row.is_visible():
            return True
        # Its title actions show while the pointer is over the view.
        await lab.locator(".explorer-folders-view").hover()
        await lab.get_by_role("button", name="Refresh Explorer").click(timeout=5_000)
        return False

    await until(listed, within=30, every=2.0, what=f"{NOTE} in the Explorer")
    await row.click()
    await expect(editor_lines(lab)).to_contain_text(re.compile(r"LPU=lpu\d"), timeout=30_000)


def editor_lines(lab: Page) -> Locator:
    return lab.locator(".editor-instance .monaco-editor .view-lines").first


async def save_a_note(lab: Page) -> None:
    """A line typed at the end of NOTE in the editor, saved (Ctrl+S) and on the lab's volume before the
    lab is stopped: the save travels over the workbench's socket, which closing the page cuts."""
    await editor_lines(lab).click()
    await lab.keyboard.press("Control+End")
    await lab.keyboard.press("Enter")
    await lab.keyboard.type(NOTE_TEXT)
    await expect(editor_lines(lab)).to_contain_text(NOTE_TEXT)
    await lab.keyboard.press("Control+S")
    await expect(lab.locator(".tab.dirty")).to_have_count(0, timeout=30_000)
    note = home_of(lab) / NOTE

    async def on_disk() -> bool:
        return NOTE_TEXT in note.read_text()

    await until(on_disk, within=30, every=0.5, what=f"{NOTE} saved on disk")


async def read_the_note(lab: Page) -> None:
    """NOTE, opened from the Explorer, holds what was typed before the restart."""
    await lab.locator(".explorer-folders-view .monaco-list-row", has_text=NOTE).click(timeout=30_000)
    await expect(editor_lines(lab)).to_contain_text(NOTE_TEXT, timeout=30_000)


async def restart_the_lab(page: Page, language: Language) -> None:
    """Stop and Start from the lab's row, back to Ready."""
    await lab_row(page).get_by_role("button", name=text(language, "labs.action.stop")).click()
    await expect(lab_row(page)).to_contain_text(text(language, "workloads.status.Stopped"), timeout=READY_MS)
    await lab_row(page).get_by_role("button", name=text(language, "labs.action.start")).click()
    await expect(lab_row(page)).to_contain_text(text(language, "workloads.status.Ready"), timeout=READY_MS)


async def last_active_moved(page: Page, language: Language) -> None:
    """The row's "last active" says how long ago the workbench was used (read every 15 s at most)."""
    # "12 s ago" / "12초 전", or minutes on a slow machine: any count.
    said = [re.escape(text(language, f"labs.active.ago.{unit}", n=0)) for unit in ("s", "m")]
    ago = re.compile("|".join(pattern.replace("0", r"\d+", 1) for pattern in said))

    async def shown() -> bool:
        await page.reload()
        cell = page.get_by_test_id(f"active-{LAB}")
        return bool(ago.search(await cell.inner_text()))

    await until(shown, within=60, every=3.0, what="last active moved")


async def code_server_checks_the_socket_origin(admin: httpx.AsyncClient, url: str, project: str) -> None:
    """A bearer caller's socket from a foreign origin, which NuFi passes on, is refused by code-server
    itself; from the host it asked at, it opens."""
    port = urlsplit(url).port
    workbench = await admin.get(f"/labs/{project}/{LAB}/", follow_redirects=True)
    stable = re.search(r"stable-[0-9a-f]{40}", workbench.text)
    assert stable is not None, workbench.text[:400]
    socket_url = f"ws://127.0.0.1:{port}/labs/{project}/{LAB}/{stable[0]}{SOCKET_QUERY}"
    headers = {"Authorization": admin.headers["Authorization"]}
    with pytest.raises(InvalidStatus) as refused:
        async with connect(socket_url, origin=Origin("http://evil.example"), additional_headers=headers):
            pass
    assert refused.value.response.status_code == 403
    async with connect(socket_url, origin=Origin(f"http://127.0.0.1:{port}"), additional_headers=headers):
        pass


@dataclass(frozen=True)
class Walk:
    """A member's Labs page in a project of the walk's own, and where that project's lab is served."""

    page: Page
    project: str
    url: str

    @property
    def origin(self) -> str:
        return f"http://{LAB}--{self.project}.localhost:{urlsplit(self.url).port}"


@asynccontextmanager
async def a_member_with_a_used_lab(
    url: str, admin: httpx.AsyncClient, browser: Browser, language: Language
) -> AsyncIterator[tuple[Walk, Page]]:
    """Signed in as a member in `language`, a VS Code lab made from the Labs page, Ready, its workbench
    open; the page photographed."""
    project = f"vscode-{language}"
    made = await admin.post("/api/v1/admin/projects", json={"name": project, "members": ["user"]})
    assert made.status_code == 201, made.text
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 1000})
    try:
        walk = Walk(await context.new_page(), project, url)
        await walk.page.goto(f"{url}/labs?project={project}")
        await sign_in(walk.page, "user")
        await make_the_lab(walk.page, language)
        await expect(walk.page.get_by_test_id(f"active-{LAB}")).to_have_text(
            text(language, "labs.active.none")
        )
        await speaks(walk.page, language, "the Labs page with a VS Code lab")
        await shot(walk.page, f"{language}-vscode-1-lab-ready")
        lab = await open_the_workbench(walk.page, walk.origin, project)
        await shot(lab, f"{language}-vscode-2-workbench", full_page=False)
        yield walk, lab
    finally:
        await context.close()
        await admin.delete(f"/api/v1/admin/projects/{project}")


async def test_a_member_works_in_a_vscode_lab_on_an_lpu_and_finds_its_files_after_a_restart(
    sandbox: SandboxRun, admin: httpx.AsyncClient, browser: Browser
) -> None:
    """The whole walk, on the Korean dashboard (the workbench's own words are code-server's)."""
    language: Language = "ko"
    url = sandbox.state["nufi_url"]
    async with a_member_with_a_used_lab(url, admin, browser, language) as (walk, lab):
        await echo_the_lpu(lab)
        await save_a_note(lab)
        await shot(lab, f"{language}-vscode-3-terminal-and-note", full_page=False)
        await lab.close()

        await last_active_moved(walk.page, language)
        await shot(walk.page, f"{language}-vscode-4-last-active")
        await restart_the_lab(walk.page, language)
        lab = await open_the_workbench(walk.page, walk.origin, walk.project)
        await read_the_note(lab)
        await shot(lab, f"{language}-vscode-5-note-after-restart", full_page=False)
        await code_server_checks_the_socket_origin(admin, url, walk.project)


async def test_the_english_labs_page_shows_a_vscode_lab_and_when_it_was_last_active(
    sandbox: SandboxRun, admin: httpx.AsyncClient, browser: Browser
) -> None:
    """NuFi's own page in English, around a workbench that was opened."""
    language: Language = "en"
    async with a_member_with_a_used_lab(sandbox.state["nufi_url"], admin, browser, language) as (walk, lab):
        await lab.close()
        await last_active_moved(walk.page, language)
        await speaks(walk.page, language, "the Labs page after the workbench was used")
        await shot(walk.page, f"{language}-vscode-4-last-active")
