"""Tokens kept per server in the user's config directory, readable by the user alone (0600 in a 0700
directory), and renewed with the refresh token once the access token has expired."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from nufi.cli import exits
from nufi.cli.say import say

FILE_MODE = 0o600
DIR_MODE = 0o700
# Renew this long before the access token expires, so that it does not expire in flight.
EXPIRY_MARGIN_SECONDS = 30.0
_CURRENT = "current.json"


def config_dir() -> Path:
    """`$XDG_CONFIG_HOME/nufi` (`~/.config/nufi`); the platform's own place on macOS and Windows."""
    override = os.environ.get("NUFI_CONFIG_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / "nufi"
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "nufi"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "nufi"
    return Path.home() / ".config" / "nufi"


def normalise_server(server: str) -> str:
    return server.strip().rstrip("/")


@dataclass(frozen=True)
class StoredLogin:
    server: str
    issuer: str
    client_id: str
    token_endpoint: str
    access_token: str
    expires_at: float
    refresh_token: str | None = None
    username: str | None = None

    def expired(self, now: float) -> bool:
        return now >= self.expires_at - EXPIRY_MARGIN_SECONDS

    def with_grant(self, grant: dict[str, Any], now: float) -> StoredLogin:
        """This login after a token answer; a refresh answer may leave the refresh token out."""
        return replace(
            self,
            access_token=str(grant["access_token"]),
            expires_at=now + float(grant.get("expires_in") or 60),
            refresh_token=str(grant.get("refresh_token") or self.refresh_token or "") or None,
        )


class TokenCache:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()

    def path_for(self, server: str) -> Path:
        key = normalise_server(server)
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        host = "".join(c if c.isalnum() else "-" for c in key.split("://")[-1])[:40]
        return self.directory / "tokens" / f"{host}-{digest}.json"

    def load(self, server: str) -> StoredLogin | None:
        try:
            raw = json.loads(self.path_for(server).read_text())
            return StoredLogin(**raw)
        except (OSError, ValueError, TypeError):
            return None

    def save(self, login: StoredLogin) -> Path:
        path = self.path_for(login.server)
        self._write_private(path, json.dumps(asdict(login), indent=2))
        return path

    def remember_current(self, server: str) -> None:
        """The server commands talk to when neither --server nor NUFI_SERVER names one."""
        self._write_private(self.directory / _CURRENT, json.dumps({"server": normalise_server(server)}))

    def delete(self, server: str) -> bool:
        try:
            self.path_for(server).unlink()
        except FileNotFoundError:
            return False
        return True

    def current_server(self) -> str | None:
        try:
            server = json.loads((self.directory / _CURRENT).read_text()).get("server")
        except (OSError, ValueError, AttributeError):
            return None
        return str(server) if server else None

    def _write_private(self, path: Path, text: str) -> None:
        for directory in (self.directory, path.parent):
            directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            directory.chmod(DIR_MODE)
        _write_file(path, text)


def _write_file(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    # Created 0600 from the start: a token is never readable by others, not even for a moment.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    os.chmod(temporary, FILE_MODE)
    os.replace(temporary, path)


def fresh_login(
    cache: TokenCache, login: StoredLogin, http: httpx.Client, now: float | None = None
) -> StoredLogin:
    """`login` with an access token that has not expired: renewed and saved when it had."""
    now = time.time() if now is None else now
    if not login.expired(now):
        return login
    return renew(cache, login, http, now)


def renew(cache: TokenCache, login: StoredLogin, http: httpx.Client, now: float | None = None) -> StoredLogin:
    """The refresh grant (RFC 6749 §6) for a public client; the new tokens are saved."""
    now = time.time() if now is None else now
    if not login.refresh_token:
        raise exits.CliFailure(exits.UNAVAILABLE, [say("cli.auth.not_signed_in", server=login.server)])
    form = {"grant_type": "refresh_token", "client_id": login.client_id, "refresh_token": login.refresh_token}
    try:
        answer = http.post(login.token_endpoint, data=form)
    except httpx.HTTPError as exc:
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.net.unreachable", url=login.token_endpoint, error=str(exc))]
        ) from None
    if answer.status_code != httpx.codes.OK:
        error = oauth_error(answer)
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.auth.refresh_refused", server=login.server, error=error)]
        )
    renewed = login.with_grant(answer.json(), now)
    cache.save(renewed)
    return renewed


def oauth_error(answer: httpx.Response) -> str:
    """An RFC 6749 §5.2 error answer's words, or its HTTP status."""
    try:
        body = answer.json()
    except ValueError:
        return f"HTTP {answer.status_code}"
    if not isinstance(body, dict):
        return f"HTTP {answer.status_code}"
    return str(body.get("error_description") or body.get("error") or f"HTTP {answer.status_code}")
