"""A dashboard page left open after its session ended, in a real browser (Debian's Chromium, driven
by Playwright) against a running sandbox: the admin signs out in another tab, then clicks on the
page still open; nothing is done, the page goes to sign in, and its server-side page is gone."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import re
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, expect
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from e2e.browser_support import LOCALES, bounded, sign_in
from e2e.e2e_sandbox_support import SandboxRun, bearer, token
from integration.ui.served_dashboard import realm_dashboard
from nufi.ui.i18n import Language, text
from support.polling import eventually

PAGES_METRIC = re.compile(r'^nufi_dashboard_pages\{state="connected"\} ([0-9.e+]+)$', re.MULTILINE)


def connected_pages(url: str) -> int:
    metrics = httpx.get(f"{url}/metrics", timeout=10.0).text
    found = PAGES_METRIC.search(metrics)
    assert found, "/metrics has no nufi_dashboard_pages"
    return int(float(found[1]))


def project_names(sandbox: SandboxRun) -> set[str]:
    headers = bearer(token(sandbox.state, "admin", "admin"))
    listed = httpx.get(f"{sandbox.state['nufi_url']}/api/v1/projects", headers=headers, timeout=30.0)
    assert listed.status_code == 200, listed.text
    return {item["name"] for item in listed.json()["items"]}


async def test_a_page_left_open_after_sign_out_does_nothing_and_is_closed_on_the_server(
    sandbox: SandboxRun, browser: Browser
) -> None:
    language: Language = "en"
    url = sandbox.state["nufi_url"]
    context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 900})
    try:
        stale = await bounded(context.new_page(), "opening a tab")
        await stale.goto(f"{url}/admin/projects")
        await sign_in(stale, "admin")
        await expect(stale).to_have_url(f"{url}/admin/projects")
        await stale.get_by_label(text(language, "workloads.field.name"), exact=True).fill("after-sign-out")

        other = await bounded(context.new_page(), "opening a second tab")
        await other.goto(f"{url}/")
        await expect(other.get_by_test_id("user-name")).to_have_text("admin")

        def both_connected() -> None:
            assert connected_pages(url) >= 2

        await eventually(both_connected, within=30, every=0.2)
        await other.get_by_role("button", name=text(language, "header.sign_out")).click()
        await expect(other).not_to_have_url(re.compile(re.escape(url) + "/$"))
        await bounded(other.close(), "closing the second tab")

        # The first tab still shows the form it was built with, for a session that has ended.
        await expect(stale).to_have_url(f"{url}/admin/projects")
        await stale.get_by_role("button", name=text(language, "projects.action.create")).click()
        # Nothing was done for it, its browser is on the way to sign in, its page gone on the server.
        await expect(stale.locator("#kc-form-login")).to_be_visible()

        def none_kept() -> None:
            assert connected_pages(url) == 0

        await eventually(none_kept, within=30, every=0.2)
        assert "after-sign-out" not in await asyncio.to_thread(project_names, sandbox)
    finally:
        await bounded(context.close(), "closing the browser context")


# Access tokens living 30 s: always within the minute before expiry, so every check refreshes them
# and sees what the identity provider says now.
ROLES: dict[str, Any] = {
    "users": [{"username": "admin", "password": "admin", "roles": ["nufi-admin"]}],
    "clients": [
        {
            "id": "nufi-dashboard",
            "secret": "served-dashboard-client-secret",
            "redirect_uris": ["http://127.0.0.1:*"],
            "audience": "nufi",
            "access_token_lifespan": 30,
        }
    ],
}


async def test_a_page_whose_admin_role_was_revoked_does_nothing_and_is_closed_on_the_server(
    browser: Browser, tmp_path: Path
) -> None:
    language: Language = "en"
    with realm_dashboard(tmp_path, ROLES) as served:
        context = await browser.new_context(locale=LOCALES[language], viewport={"width": 1400, "height": 900})
        try:
            page = await bounded(context.new_page(), "opening a tab")
            await page.goto(f"{served.url}/admin/projects")
            await sign_in(page, "admin")
            await expect(page).to_have_url(f"{served.url}/admin/projects")
            await page.get_by_label(text(language, "workloads.field.name"), exact=True).fill("after-revoke")

            def connected() -> None:
                assert served.pages()["connected"] == 1

            await eventually(connected, within=30, every=0.2)

            revoked = copy.deepcopy(ROLES)
            revoked["users"][0]["roles"] = []
            served.change_realm(revoked)  # an administrator takes the role away at the issuer

            # The server's own recheck of the session may close the page first, taking the button with
            # it: the sign-in form below is then already on its way.
            with contextlib.suppress(PlaywrightTimeoutError):
                await page.get_by_role("button", name=text(language, "projects.action.create")).click(
                    timeout=10_000
                )
            # The click ran nothing: the page was built for an admin, its session no longer is one.
            await expect(page.locator("#kc-form-login")).to_be_visible()

            def none_kept() -> None:
                assert served.pages()["connected"] == 0

            await eventually(none_kept, within=30, every=0.2)
        finally:
            await bounded(context.close(), "closing the browser context")
