"""No secret reaches a log: a whole sandbox is made to handle every secret NuFi holds (bearer tokens
good and bad, NuFi's Kubernetes token, a dashboard sign-in with its code exchange, session cookie
and stored tokens, a sign-out), then stopped, and every log it wrote is searched for each of them."""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from playwright.async_api import Page, Request, expect

from e2e.browser_support import chromium, sign_in
from e2e.e2e_sandbox_support import SandboxRun, bearer
from nufi.auth.web_sessions import session_hash
from nufi.auth.web_tokens import TokenCipher, TokenSet
from nufi_sandbox.sandbox.components import DASHBOARD_SECRET

SESSION_SECRET_ENV = "NUFI_DASHBOARD_SESSION_SECRET"
# Shorter values (a username, a language) occur in logs for good reasons; every secret here is longer.
SHORTEST_SECRET = 12


@dataclass
class Secrets:
    """Each secret by what it is, so a failure names the one that leaked."""

    found: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, value: str | None) -> None:
        assert value, f"{name}: the test did not get hold of it"
        assert len(value) >= SHORTEST_SECRET, f"{name} is too short to search for: {value!r}"
        self.found[name] = value

    def add_jwt(self, name: str, value: str | None) -> None:
        """A JWT, and on its own its signature: a log cutting the token short still gives that away."""
        self.add(name, value)
        assert value is not None and value.count(".") == 2, f"{name} is not a JWT"
        self.add(f"{name} (signature)", value.rsplit(".", 1)[1])


def password_grant(state: dict[str, Any], username: str) -> dict[str, Any]:
    """The issuer's whole token answer (access and refresh token), as the CLI client gets it."""
    form = {"grant_type": "password", "client_id": "nufi-cli", "username": username, "password": username}
    response = httpx.post(state["token_url"], data=form, timeout=10.0)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def environment_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (entry.split(b"=", 1) for entry in raw.split(b"\0") if b"=" in entry)
    return {name.decode(): value.decode(errors="replace") for name, value in pairs}


def nufi_pid(run: SandboxRun) -> int:
    programs = json.loads((run.state_dir / "programs.json").read_text())
    (pid,) = [entry["pid"] for entry in programs if entry["name"] == "nufi"]
    return int(pid)


def kubernetes_token(run: SandboxRun) -> str:
    """NuFi's own credential at the (dev) Kubernetes API, sent with every read of the cluster."""
    kubeconfig = yaml.safe_load(Path(run.state["kubeconfig"]).read_text())
    (user,) = kubeconfig["users"]
    token: str = user["user"]["token"]
    return token


def log_files(run: SandboxRun) -> list[Path]:
    """Every log the sandbox wrote: each program's (logs/, Prometheus' own, the pods' under the dev
    cluster) and the sandbox's own output."""
    return sorted({*run.state_dir.rglob("*.log"), *run.work.glob("sandbox-*.out")})


def stored_session_tokens(run: SandboxRun, session_id: str, secret: str) -> TokenSet:
    """The tokens NuFi keeps for a dashboard session, opened with the sandbox's session secret."""
    id_hash = session_hash(session_id)
    with sqlite3.connect(run.state_dir / "nufi.db") as connection:
        row = connection.execute("SELECT tokens FROM web_sessions WHERE id_hash = ?", (id_hash,)).fetchone()
    assert row is not None, "the browser's session is not in NuFi's database"
    return TokenCipher(secret).open(row[0], session=id_hash)


def api_calls(url: str, admin: str, user: str, garbage: str, found: Secrets) -> None:
    """Routes that verify a token: accepted, refused as 401 (garbage, forged) and as 403."""
    with httpx.Client(base_url=url, timeout=30.0) as api:
        assert api.get("/api/v1/me", headers=bearer(admin)).json()["username"] == "admin"
        assert api.get("/api/v1/devices", headers=bearer(user)).status_code == 200
        assert api.get("/api/v1/admin/audit", headers=bearer(admin)).status_code == 200
        assert api.get("/api/v1/devices/no-such-type", headers=bearer(admin)).status_code == 404
        assert api.get("/api/v1/devices", headers=bearer(garbage)).status_code == 401
        # A real token with its signature swapped: well-formed, so it gets as far as the key check.
        forged = admin.rsplit(".", 1)[0] + "." + secrets.token_urlsafe(64)
        found.add("forged access token", forged)
        assert api.get("/api/v1/me", headers=bearer(forged)).status_code == 401
        assert api.get("/api/v1/admin/audit", headers=bearer(user)).status_code == 403
        # A body goes through the request guard, which authenticates before the route does.
        checked = api.post(
            "/api/v1/admin/devices/check-resource-key",
            headers=bearer(user),
            json={"resource_key": "hyperaccel.ai/lpu"},
        )
        assert checked.status_code == 403
        # The lab proxy checks tokens itself; nobody has a lab called so.
        assert api.get("/labs/nowhere/nothing/lab", headers=bearer(admin)).status_code in (403, 404)
        assert api.get("/labs/nowhere/nothing/lab", headers=bearer(garbage)).status_code == 401


async def dashboard_visit(url: str, page: Page, callbacks: list[str]) -> None:
    def remember(request: Request) -> None:
        if request.url.startswith(f"{url}/auth/callback"):
            callbacks.append(request.url)

    page.on("request", remember)
    await page.goto(f"{url}/admin/devices")
    await sign_in(page, "admin")
    await expect(page).to_have_url(f"{url}/admin/devices")
    await expect(page.get_by_text("NVIDIA GPU")).to_be_visible()
    await page.goto(f"{url}/")
    await expect(page.get_by_test_id("user-name")).to_have_text("admin")


async def browser_sign_in_and_out(sandbox: SandboxRun, url: str, session_secret: str, found: Secrets) -> None:
    """Signs in and out through the dashboard; its cookies, session tokens and code go to `found`."""
    callbacks: list[str] = []
    async with chromium() as browser:
        context = await browser.new_context(locale="en-US")
        page = await context.new_page()
        await dashboard_visit(url, page, callbacks)
        cookies = {c["name"]: c["value"] for c in await context.cookies(url)}
        session_id = cookies["nufi_session"]
        for name, value in cookies.items():
            if len(value) >= SHORTEST_SECRET:
                found.add(f"cookie {name}", value)
        # What NuFi exchanged the code for and keeps for the session, read before sign-out deletes it.
        tokens = stored_session_tokens(sandbox, session_id, session_secret)
        found.add_jwt("the session's access token", tokens.access_token)
        found.add("the session's refresh token", tokens.refresh_token)
        found.add_jwt("the session's ID token", tokens.id_token)
        # Signing out sends the ID token to the issuer as a hint.
        await page.get_by_role("button", name="Sign out").click()
        await expect(page.locator("#kc-form-login")).to_be_visible()
        await context.close()
    (callback,) = callbacks
    code = httpx.URL(callback).params["code"]
    found.add("authorization code", code)


async def test_no_secret_nufi_handles_reaches_any_log(sandbox: SandboxRun) -> None:
    url = sandbox.state["nufi_url"]
    found = Secrets()
    # What the NuFi process was really given, not only what the sandbox meant to give it.
    environment = environment_of(nufi_pid(sandbox))
    session_secret = (sandbox.state_dir / "dashboard-session-secret").read_text().strip()
    assert environment[SESSION_SECRET_ENV] == session_secret
    assert environment["NUFI_OIDC_CLIENT_SECRET"] == DASHBOARD_SECRET
    found.add("dashboard session secret", session_secret)
    found.add("OIDC client secret", DASHBOARD_SECRET)
    found.add("Kubernetes token", kubernetes_token(sandbox))

    admin, user = password_grant(sandbox.state, "admin"), password_grant(sandbox.state, "user")
    for name, answer in (("admin", admin), ("user", user)):
        found.add_jwt(f"{name}'s access token", answer["access_token"])
        found.add(f"{name}'s refresh token", answer["refresh_token"])
    garbage = "garbage-" + secrets.token_urlsafe(24)
    found.add("garbage bearer token", garbage)
    api_calls(url, admin["access_token"], user["access_token"], garbage, found)

    await browser_sign_in_and_out(sandbox, url, session_secret, found)

    # Stopped, so every line is on disk, and what the programs write on the way out is searched too.
    sandbox.interrupt()
    assert sandbox.wait_exit() == 0, sandbox.text()

    files = log_files(sandbox)
    texts = {path: path.read_text(errors="replace") for path in files}
    names = {path.name for path in files}
    assert {"nufi.log", "idp.log", "devcluster.log", "prometheus.log"} <= names, names
    nufi_log = sandbox.state_dir / "logs" / "nufi.log"
    logged = texts[nufi_log]
    # The search looks at the right lines: the requests that carried the secrets are all in them.
    for line in (
        "path=/api/v1/me",
        "path=/api/v1/admin/audit",
        "status=401",
        "status=403",
        "path=/auth/callback",
        "dashboard sign-in",
        "dashboard sign-out",
        "path=/labs/nowhere/nothing/lab",
    ):
        assert line in logged, f"{line!r} is not in {nufi_log}"
    leaks = [
        f"{name} in {path.relative_to(sandbox.work)}"
        for name, value in found.found.items()
        for path, text in texts.items()
        if value in text
    ]
    assert not leaks, "\n".join(leaks)
