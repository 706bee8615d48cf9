"""`nufi serve` as a process with dashboard sign-in against the dev identity provider (the run's, or
one with a realm of the test's own when the test rewrites it), and a person signed in to it through
httpx (following the sign-in redirects by hand, as a browser does)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import yaml

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.idp.realm import DEFAULT_USERS_FILE
from nufi_sandbox.processes import free_port
from support.env import env_without_nufi
from support.nufi_serve import stop
from support.polling import poll

NUFI = Path(sys.executable).parent / "nufi"
DASHBOARD_CLIENT = "nufi-dashboard"
# The dashboard client's secret in the dev realm the run's identity provider serves.
DEV_CLIENT_SECRET: str = next(
    client["secret"]
    for client in yaml.safe_load(DEFAULT_USERS_FILE.read_text())["clients"]
    if client["id"] == DASHBOARD_CLIENT
)
CLIENT_SECRET = "served-dashboard-client-secret"
REALM: dict[str, Any] = {
    "users": [
        {"username": "admin", "password": "admin-pw", "roles": ["nufi-admin"]},
        {"username": "user", "password": "user-pw"},
    ],
    "clients": [
        {
            "id": DASHBOARD_CLIENT,
            "secret": CLIENT_SECRET,
            "redirect_uris": ["http://127.0.0.1:*"],
            "audience": "nufi",
        }
    ],
}
PAGES_METRIC = re.compile(r'^nufi_dashboard_pages\{state="(\w+)"\} ([0-9.e+]+)$', re.MULTILINE)


@dataclass
class Served:
    url: str
    process: subprocess.Popen[bytes]
    log: Path
    realm: Path | None = None  # the users file of an identity provider of the test's own

    def change_realm(self, realm: dict[str, Any]) -> None:
        """Rewrite the identity provider's users file (it reads it again when it changes)."""
        assert self.realm is not None, "the run's identity provider keeps its realm"
        written = self.realm.with_suffix(".new")
        written.write_text(yaml.safe_dump(realm))
        written.replace(self.realm)
        later = time.time_ns() + 1_000_000_000  # a later mtime, however coarse the file system's clock
        os.utime(self.realm, ns=(later, later))

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)[1])  # type: ignore[index]

    def pages(self) -> dict[str, int]:
        """nufi_dashboard_pages by state, from /metrics."""
        metrics = httpx.get(f"{self.url}/metrics", timeout=10.0).text
        found = {state: int(float(value)) for state, value in PAGES_METRIC.findall(metrics)}
        assert found, f"/metrics has no nufi_dashboard_pages:\n{metrics[:2000]}"
        return found


@contextmanager
def served_dashboard(
    work: Path,
    idp: IdentityProviderProcess,
    *,
    client_secret: str = DEV_CLIENT_SECRET,
    realm: Path | None = None,
    **env: str,
) -> Iterator[Served]:
    """`nufi serve` signing in against `idp` (the run's, with the dev realm, unless `realm` names the
    users file of one of the test's own), its database under `work`, NUFI_* `env` beside."""
    port = free_port()
    log = work / "nufi.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [str(NUFI), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=work,
            env=env_without_nufi(
                NUFI_LOG_LEVEL="warning",
                NUFI_DATABASE_URL=f"sqlite+aiosqlite:///{work / 'nufi.db'}",
                NUFI_OIDC_ISSUER=idp.issuer,
                NUFI_OIDC_CLIENT_ID=DASHBOARD_CLIENT,
                NUFI_OIDC_CLIENT_SECRET=client_secret,
                NUFI_DASHBOARD_SESSION_SECRET="served-dashboard-session-secret",
                NUFI_THERMAL_ENABLED="false",
                **env,
            ),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    served = Served(f"http://127.0.0.1:{port}", process, log, realm)
    try:
        poll(lambda: _ready(served), within=60, every=0.2, what="nufi serve answering /healthz")
        yield served
    finally:
        stop(process)


@contextmanager
def realm_dashboard(work: Path, realm_spec: dict[str, Any] | None = None, **env: str) -> Iterator[Served]:
    """`served_dashboard` over an identity provider of its own with `realm_spec` (default `REALM`),
    for a test that changes the realm while the dashboard runs (`Served.change_realm`)."""
    realm = work / "realm.yaml"
    realm.write_text(yaml.safe_dump(realm_spec or REALM))
    idp = IdentityProviderProcess(work / "idp", users_file=realm).start()
    try:
        with served_dashboard(
            work, idp, client_secret=CLIENT_SECRET, realm=realm, NUFI_OIDC_AUDIENCE="nufi", **env
        ) as served:
            yield served
    finally:
        idp.stop()


def _ready(served: Served) -> bool:
    assert served.process.poll() is None, f"nufi serve exited:\n{served.log.read_text()[-4000:]}"
    try:
        return httpx.get(f"{served.url}/healthz", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def sign_in(served: Served, username: str, password: str) -> str:
    """A session id for `username`, signed in the way a browser does."""
    with httpx.Client(timeout=10.0) as nufi, httpx.Client(timeout=10.0) as idp:
        login = nufi.get(f"{served.url}/auth/login", params={"next": "/"})
        assert login.status_code == 302, login.text
        form = idp.get(login.headers["location"])
        action = unescape(re.search(r"action='([^']+)'", form.text)[1])  # type: ignore[index]
        fields = {
            unescape(n): unescape(v) for n, v in re.findall(r"name='([^']+)' value='([^']*)'", form.text)
        }
        submitted = idp.post(action, data={**fields, "username": username, "password": password})
        assert submitted.status_code == 302, submitted.text
        back = urlsplit(submitted.headers["location"])
        callback = nufi.get(f"{served.url}{back.path}?{back.query}")
        assert callback.status_code == 303, callback.text
        session_id = nufi.cookies.get("nufi_session")
        assert session_id
        return session_id
