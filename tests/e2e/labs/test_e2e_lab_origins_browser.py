"""Labs on origins of their own, in a real browser (Debian's Chromium) against a running sandbox: a
member of two projects opens a real JupyterLab in each; a script in one lab's page reaches its own lab,
but neither the other lab's files (with the visitor's credentials) nor the dashboard's pages and API,
and its WebSocket to the other lab is refused; the lab's Jupyter refuses a foreign-origin socket too.
A terminal opened in a lab's page stops with the dashboard session: signing out closes its socket."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from functools import partial
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.async_api import Browser, Page, expect
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from e2e.browser_support import LOCALES, bounded, shot, sign_in
from e2e.e2e_sandbox_support import SandboxRun, bearer, token
from nufi.ui.i18n import text
from support.polling import until

from .labs_support import READY_WITHIN, lab_ready, registered

SECRET = "lab-b-secret-5b1e"
# Run in a lab's page: each URL fetched with the visitor's credentials, then one WebSocket opened.
PROBE = """
async ({fetches, socket}) => {
  const out = {};
  for (const [key, url] of Object.entries(fetches)) {
    try {
      const answer = await fetch(url, {credentials: "include"});
      out[key] = {status: answer.status, body: (await answer.text()).slice(0, 400)};
    } catch (error) {
      out[key] = {error: String(error)};
    }
  }
  out.socket = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve("no answer"), 15000);
    const ws = new WebSocket(socket);
    ws.onopen = () => { clearTimeout(timer); ws.close(); resolve("open"); };
    ws.onerror = () => { clearTimeout(timer); resolve("refused"); };
  });
  return out;
}
"""

# Run in a lab's page: a Jupyter terminal made through the lab's API, its socket opened and a command
# run in it; the socket's fate is kept in `window.labTerminal` for the test to wait on.
TERMINAL = """
async ({path}) => {
  const xsrf = decodeURIComponent((document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1] || "");
  const made = await fetch(`${path}api/terminals`, {method: "POST", headers: {"X-XSRFToken": xsrf}});
  if (!made.ok) return `terminal not made: ${made.status}`;
  const name = (await made.json()).name;
  const state = window.labTerminal = {closed: null, output: ""};
  return await new Promise((resolve) => {
    const timer = setTimeout(() => resolve("no answer"), 30000);
    const ws = new WebSocket(`ws://${location.host}${path}terminals/websocket/${name}`);
    ws.onopen = () => ws.send(JSON.stringify(["stdin", "echo ALIVE-$((6*7))\\r"]));
    ws.onmessage = (event) => {
      state.output += event.data;
      if (state.output.includes("ALIVE-42")) { clearTimeout(timer); resolve("alive"); }
    };
    ws.onclose = (event) => {
      state.closed = event.code;
      clearTimeout(timer);
      resolve(`closed ${event.code}`);
    };
  });
}
"""
# How soon after sign-out the lab's socket must be closed (NuFi closes it at once; bounded generously
# for a loaded machine).
CLOSED_WITHIN_MS = 10_000


@pytest.fixture(scope="module")
async def two_labs(sandbox: SandboxRun) -> AsyncIterator[dict[str, str]]:
    """Lab `a` of project origin-a and lab `b` of project origin-b, both Ready, `user` a member of
    both, and a secret file in lab b; the projects are deleted afterwards."""
    state = sandbox.state
    admin = bearer(token(state, "admin", "admin"))
    labs = {"origin-a": "a", "origin-b": "b"}
    async with httpx.AsyncClient(base_url=state["nufi_url"], headers=admin, timeout=30.0) as api:
        await until(lambda: registered(api), READY_WITHIN, every=1.0, what="the LPU registered")
        for project, name in labs.items():
            made = await api.post("/api/v1/admin/projects", json={"name": project, "members": ["user"]})
            assert made.status_code == 201, made.text
            body = {"name": name, "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}
            created = await api.post(f"/api/v1/projects/{project}/labs", json={**body, "storage_gib": 1})
            assert created.status_code == 201, created.text
        for project, name in labs.items():
            await until(
                partial(lab_ready, api, project, name), READY_WITHIN, every=1.0, what=f"lab {name} Ready"
            )
        await _write_secret(api, "/labs/origin-b/b/")
        try:
            yield labs
        finally:
            for project in labs:
                await api.delete(f"/api/v1/admin/projects/{project}")


async def _write_secret(api: httpx.AsyncClient, prefix: str) -> None:
    """secret.txt in the lab's root, written through Jupyter's contents API by a bearer caller."""
    page = await api.get(f"{prefix}lab")
    assert page.status_code == 200, page.status_code
    xsrf = api.cookies["_xsrf"]
    written = await api.put(
        f"{prefix}api/contents/secret.txt",
        json={"type": "file", "format": "text", "content": SECRET},
        headers={"X-XSRFToken": xsrf},
    )
    assert written.status_code in (200, 201), written.text
    api.cookies.clear()


async def _open_lab(page: Page, url: str, origin: str, path: str) -> None:
    await page.goto(f"{url}{path}")
    await _lab_settled(page, origin, path)


async def _lab_settled(page: Page, origin: str, path: str) -> None:
    """JupyterLab up on `origin` at `path`, its launcher shown: the page navigates no more."""
    await expect(page).to_have_url(re.compile(re.escape(f"{origin}{path}")), timeout=60_000)
    await expect(page).to_have_title(re.compile("JupyterLab"), timeout=60_000)
    await expect(page.locator(".jp-LauncherCard").first).to_be_visible(timeout=60_000)


async def _assert_the_probe_works_at_home(lab_b: Page, port: int | None) -> None:
    """From lab b's own page, its files and its socket are there: the probe itself works."""
    at_home = await bounded(
        lab_b.evaluate(
            PROBE,
            {
                "fetches": {"secret": "/labs/origin-b/b/api/contents/secret.txt"},
                "socket": f"ws://b--origin-b.localhost:{port}/labs/origin-b/b/api/events/subscribe",
            },
        ),
        "probing lab b from its own page",
    )
    assert at_home["secret"]["status"] == 200 and SECRET in at_home["secret"]["body"], at_home
    assert at_home["socket"] == "open", at_home


async def _assert_jupyter_checks_the_socket_origin(
    sandbox: SandboxRun, port: int | None, origin_a: str, origin_b: str
) -> None:
    """Jupyter checks a socket's Origin too: a bearer caller, whom NuFi lets through whatever its
    Origin, is refused by the lab itself from a foreign origin, and let in from the lab's own."""
    admin = bearer(token(sandbox.state, "admin", "admin"))
    socket_url = f"ws://127.0.0.1:{port}/labs/origin-b/b/api/events/subscribe"
    with pytest.raises(InvalidStatus) as refused:
        async with connect(socket_url, origin=Origin(origin_a), additional_headers=admin, open_timeout=20):
            pass
    assert refused.value.response.status_code == 403
    async with connect(socket_url, origin=Origin(origin_b), additional_headers=admin, open_timeout=20):
        pass


async def test_a_script_in_one_lab_reaches_neither_another_lab_nor_the_dashboard(
    sandbox: SandboxRun, browser: Browser, two_labs: dict[str, str]
) -> None:
    url = sandbox.state["nufi_url"]
    port = urlsplit(url).port
    origin_a = f"http://a--origin-a.localhost:{port}"
    origin_b = f"http://b--origin-b.localhost:{port}"
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    lab_a = await bounded(context.new_page(), "opening a page")
    await lab_a.goto(f"{url}/labs/origin-a/a/lab")
    await sign_in(lab_a, "user")
    await _lab_settled(lab_a, origin_a, "/labs/origin-a/a/lab")
    # The same visitor has lab b open too: its credentials for lab b are in this browser.
    lab_b = await bounded(context.new_page(), "opening a page")
    await _open_lab(lab_b, url, origin_b, "/labs/origin-b/b/lab")
    await shot(lab_a, "lab-origin-a", full_page=False)

    await _assert_the_probe_works_at_home(lab_b, port)

    # From lab a's page: its own lab answers, nothing else does.
    probe = await bounded(
        lab_a.evaluate(
            PROBE,
            {
                "fetches": {
                    "own": "/labs/origin-a/a/api/contents/",
                    "lab_b_api": f"{origin_b}/labs/origin-b/b/api/contents/secret.txt",
                    "lab_b_files": f"{origin_b}/labs/origin-b/b/files/secret.txt",
                    "lab_b_via_dashboard": f"{url}/labs/origin-b/b/api/contents/secret.txt",
                    "dashboard_api": f"{url}/api/v1/projects",
                    "dashboard_page": f"{url}/labs?project=origin-b",
                },
                "socket": f"ws://b--origin-b.localhost:{port}/labs/origin-b/b/api/events/subscribe",
            },
        ),
        "probing from lab a's page",
    )
    assert probe["own"]["status"] == 200, probe
    for key in ("lab_b_api", "lab_b_files", "lab_b_via_dashboard", "dashboard_api", "dashboard_page"):
        assert "error" in probe[key], (key, probe[key])
    assert SECRET not in str(probe)
    assert probe["socket"] == "refused", probe
    await _assert_jupyter_checks_the_socket_origin(sandbox, port, origin_a, origin_b)
    # Both pages settled (their JupyterLab up, the probes answered) before the context closes.
    await expect(lab_b).to_have_title(re.compile("JupyterLab"))
    await bounded(context.close(), "closing the browser context")


async def test_a_lab_terminal_socket_closes_when_the_dashboard_session_signs_out(
    sandbox: SandboxRun, browser: Browser, two_labs: dict[str, str]
) -> None:
    url = sandbox.state["nufi_url"]
    origin_a = f"http://a--origin-a.localhost:{urlsplit(url).port}"
    context = await browser.new_context(locale=LOCALES["en"], viewport={"width": 1400, "height": 1000})
    try:
        lab = await bounded(context.new_page(), "opening a page")
        await lab.goto(f"{url}/labs/origin-a/a/lab")
        await sign_in(lab, "user")
        await _lab_settled(lab, origin_a, "/labs/origin-a/a/lab")
        started = await bounded(lab.evaluate(TERMINAL, {"path": "/labs/origin-a/a/"}), "running a command")
        assert started == "alive", started

        dashboard = await bounded(context.new_page(), "opening the dashboard")
        await dashboard.goto(f"{url}/")
        await dashboard.get_by_role("button", name=text("en", "header.sign_out")).click()
        await expect(dashboard).not_to_have_url(re.compile(re.escape(url) + "/$"))

        # The lab's page did nothing: its terminal's socket was closed by NuFi, as a policy violation.
        await lab.wait_for_function("window.labTerminal.closed !== null", timeout=CLOSED_WITHIN_MS)
        assert await lab.evaluate("window.labTerminal.closed") == 1008
    finally:
        await bounded(context.close(), "closing the browser context")
