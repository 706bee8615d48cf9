"""`nufi serve` as a process with dashboard sign-in against the dev identity provider, and a person
signed in to it through httpx (following the sign-in redirects by hand, as a browser does)."""

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
from nufi_sandbox.processes import free_port
from support.env import env_without_nufi
from support.nufi_serve import stop

NUFI = Path(sys.executable).parent / "nufi"
CLIENT_SECRET = "served-dashboard-client-secret"
REALM: dict[str, Any] = {
    "users": [
        {"username": "admin", "password": "admin-pw", "roles": ["nufi-admin"]},
        {"username": "user", "password": "user-pw"},
    ],
    "clients": [
        {
            "id": "nufi-dashboard",
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
    realm: Path

    def change_realm(self, realm: dict[str, Any]) -> None:
        """Rewrite the identity provider's users file (it reads it again when it changes)."""
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
def served_dashboard(work: Path, realm_spec: dict[str, Any] | None = None, **env: str) -> Iterator[Served]:
    realm = work / "realm.yaml"
    realm.write_text(yaml.safe_dump(realm_spec or REALM))
    idp = IdentityProviderProcess(work / "idp", users_file=realm).start()
    port = free_port()
    log = work / "nufi.log"
    try:
        with open(log, "wb") as sink:
            process = subprocess.Popen(
                [str(NUFI), "serve", "--host", "127.0.0.1", "--port", str(port)],
                cwd=work,
                env=env_without_nufi(
                    NUFI_LOG_LEVEL="warning",
                    NUFI_DATABASE_URL=f"sqlite+aiosqlite:///{work / 'nufi.db'}",
                    NUFI_OIDC_ISSUER=idp.issuer,
                    NUFI_OIDC_AUDIENCE="nufi",
                    NUFI_OIDC_CLIENT_ID="nufi-dashboard",
                    NUFI_OIDC_CLIENT_SECRET=CLIENT_SECRET,
                    NUFI_DASHBOARD_SESSION_SECRET="served-dashboard-session-secret",
                    NUFI_THERMAL_ENABLED="false",
                    **env,
                ),
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        served = Served(f"http://127.0.0.1:{port}", process, log, realm)
        try:
            _wait_ready(served)
            yield served
        finally:
            stop(process)
    finally:
        idp.stop()


def _wait_ready(served: Served, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert served.process.poll() is None, f"nufi serve exited:\n{served.log.read_text()[-4000:]}"
        try:
            if httpx.get(f"{served.url}/healthz", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, (
            f"nufi serve not up in {timeout:g} s:\n{served.log.read_text()[-4000:]}"
        )
        time.sleep(0.2)


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
