"""Starting the dev identity provider as its own process, the way tests and the sandbox use it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx

from nufi_sandbox.idp.context import OIDC_PATH, realm_issuer
from nufi_sandbox.idp.realm import DEFAULT_REALM, DEFAULT_USERS_FILE
from nufi_sandbox.processes import ManagedProcess, free_port


class TokenRequestFailed(RuntimeError):
    """The token endpoint refused: carries its OAuth `error` and `error_description`."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.error = str(body.get("error", ""))
        self.description = str(body.get("error_description", ""))
        super().__init__(f"token endpoint answered {status}: {self.error}: {self.description}")


class IdentityProviderProcess:
    """`python -m nufi_sandbox.idp` on a loopback port, keeping its keys in `work_dir/state`.

    Two instances given the same port and work_dir serve the same issuer with the same keys; a new
    work_dir on the same port is the same issuer after a key rotation.
    """

    def __init__(
        self,
        work_dir: Path,
        *,
        users_file: Path = DEFAULT_USERS_FILE,
        realm: str = DEFAULT_REALM,
        port: int | None = None,
        name: str = "idp",
    ) -> None:
        self.work_dir = work_dir
        self.realm = realm
        self.port = port or free_port()
        argv: list[str | Path] = [
            sys.executable,
            "-m",
            "nufi_sandbox.idp",
            "--port",
            str(self.port),
            "--users",
            users_file,
            "--realm",
            realm,
            "--state-dir",
            work_dir / "state",
        ]
        self.process = ManagedProcess(name, argv, log_dir=work_dir / "logs")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def issuer(self) -> str:
        return realm_issuer(self.base_url, self.realm)

    @property
    def discovery_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    @property
    def token_url(self) -> str:
        return f"{self.issuer}{OIDC_PATH}/token"

    @property
    def auth_url(self) -> str:
        return f"{self.issuer}{OIDC_PATH}/auth"

    @property
    def certs_url(self) -> str:
        return f"{self.issuer}{OIDC_PATH}/certs"

    def token_response(self, form: dict[str, str], *, auth: tuple[str, str] | None = None) -> dict[str, Any]:
        """POST `form` to the token endpoint; the JSON answer, or TokenRequestFailed."""
        response = httpx.post(self.token_url, data=form, auth=auth, timeout=10.0)
        body: dict[str, Any] = response.json()
        if response.status_code != 200:
            raise TokenRequestFailed(response.status_code, body)
        return body

    def password_token(self, username: str, password: str, client_id: str = "nufi-cli") -> str:
        """An access token for `username` through the password grant."""
        form = {"grant_type": "password", "client_id": client_id, "username": username, "password": password}
        token: str = self.token_response(form)["access_token"]
        return token

    def _ready(self) -> bool:
        return httpx.get(self.discovery_url, timeout=1.0).status_code == 200

    def start(self, timeout: float = 30.0) -> IdentityProviderProcess:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.process.start()
        self.process.wait_ready(self._ready, timeout=timeout, what="serving its discovery document")
        return self

    async def _ready_async(self) -> bool:
        async with httpx.AsyncClient(timeout=1.0) as client:
            return (await client.get(self.discovery_url)).status_code == 200

    async def start_async(
        self,
        timeout: float = 30.0,  # noqa: ASYNC109 - the same deadline semantics as start
    ) -> IdentityProviderProcess:
        """start() for callers inside an event loop."""
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.process.start()
        await self.process.wait_ready_async(
            self._ready_async, timeout=timeout, what="serving its discovery document"
        )
        return self

    async def stop_async(self) -> None:
        await self.process.stop_async()

    def stop(self) -> None:
        self.process.stop()
