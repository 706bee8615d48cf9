"""Dashboard sessions: signing a browser in, recognising it on every page, signing it out.

The browser holds a random session id and nothing else; the tokens stay on the server, sealed, in
a store the database implements (`nufi.db.WebSessionStore`; `auth` may not import `db`, so the
store is described here as a protocol and handed in by `nufi.services`). Rows are found by the SHA-256
of the id, so a copy of the table does not let anyone present a session.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from nufi.auth.errors import IdentityProviderUnavailable, InvalidToken
from nufi.auth.principal import Principal
from nufi.auth.verifier import TokenVerifier
from nufi.auth.web_login import LoginSealer, PendingLogin
from nufi.auth.web_oidc import DashboardClient, IssuerRefused
from nufi.auth.web_tokens import SealBroken, TokenCipher, TokenSet
from nufi.config import Settings, env_name
from nufi.logging import get_logger

# Tokens expiring within this long are refreshed before the page is served, so a page never starts
# with a token that dies while it loads.
REFRESH_MARGIN_SECONDS = 60.0
# last_seen_at is for people reading the table, not for security: one write a minute is plenty.
TOUCH_INTERVAL_SECONDS = 60.0

_log = get_logger("nufi.auth")


class StoredWebSession(Protocol):
    @property
    def subject(self) -> str: ...
    @property
    def username(self) -> str: ...
    @property
    def tokens(self) -> str: ...
    @property
    def expires_at(self) -> datetime: ...
    @property
    def last_seen_at(self) -> datetime: ...


class WebSessionStore(Protocol):
    async def create(
        self, *, id_hash: str, subject: str, username: str, tokens: str, expires_at: datetime, now: datetime
    ) -> None: ...
    async def get(self, id_hash: str) -> StoredWebSession | None: ...
    async def touch(self, id_hash: str, *, now: datetime, tokens: str | None = None) -> bool: ...
    async def delete(self, id_hash: str) -> None: ...


def missing_settings(settings: Settings) -> list[str]:
    """The settings dashboard sign-in needs and `settings` lacks, as environment variable names."""
    needed = ("oidc_issuer", "oidc_client_id", "dashboard_session_secret")
    return [env_name(name) for name in needed if getattr(settings, name) is None]


def session_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


_HASH = re.compile(r"[0-9a-f]{64}")


def is_session_hash(value: str) -> bool:
    """Whether `value` is spelled as `session_hash` spells one (lowercase hex SHA-256)."""
    return _HASH.fullmatch(value) is not None


@dataclass(frozen=True)
class NewSession:
    session_id: str
    expires_at: datetime
    principal: Principal


class WebSessions:
    def __init__(
        self,
        *,
        client: DashboardClient,
        store: WebSessionStore,
        secret: str,
        lifetime_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.logins = LoginSealer(secret)
        self.lifetime_seconds = lifetime_seconds
        self._store = store
        self._cipher = TokenCipher(secret)
        self._clock = clock
        # One refresh per session at a time in this process: two page loads racing to refresh would
        # spend the refresh token twice, which an issuer that rotates refresh tokens punishes.
        self._refreshing: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._end_hooks: list[Callable[[str], None]] = []

    def on_end(self, hook: Callable[[str], None]) -> None:
        """`hook(id_hash)` runs when this process ends a session (signed out, expired, refused by the
        issuer, its tokens not holding up), so what was opened under it can close at once."""
        self._end_hooks.append(hook)

    @classmethod
    def from_settings(
        cls, settings: Settings, *, verifier: TokenVerifier | None, store: WebSessionStore
    ) -> WebSessions | None:
        """Sessions for the dashboard, or None when a setting they need is unset (see
        `missing_settings`). Close them when done."""
        secret = settings.dashboard_session_secret
        if verifier is None or settings.oidc_client_id is None or secret is None:
            return None
        client_secret = settings.oidc_client_secret
        client = DashboardClient(
            verifier=verifier,
            client_id=settings.oidc_client_id,
            client_secret=None if client_secret is None else client_secret.get_secret_value(),
            timeout_seconds=settings.oidc_timeout_seconds,
        )
        return cls(
            client=client,
            store=store,
            secret=secret.get_secret_value(),
            lifetime_seconds=settings.dashboard_session_lifetime_seconds,
        )

    async def close(self) -> None:
        await self.client.close()

    async def begin(self, *, redirect_uri: str, next_path: str) -> tuple[str, str]:
        """The issuer's authorization URL to send the browser to, and the sealed login for the
        cookie the callback reads. IdentityProviderUnavailable when the issuer cannot be reached."""
        login = PendingLogin.start(redirect_uri=redirect_uri, next_path=next_path)
        return await self.client.authorization_url(login), self.logins.seal(login)

    def pending(self, sealed: str) -> PendingLogin:
        """The login a callback finishes; SealBroken when its cookie is missing, altered or old."""
        return self.logins.open(sealed)

    async def finish(self, code: str, login: PendingLogin) -> NewSession:
        """Exchange the code and store the session. IssuerRefused, InvalidToken or
        IdentityProviderUnavailable when that cannot be done."""
        tokens, principal = await self.client.exchange(code, login)
        session_id = secrets.token_urlsafe(32)
        id_hash = session_hash(session_id)
        now = self._clock()
        expires_at = _utc(now + self.lifetime_seconds)
        await self._store.create(
            id_hash=id_hash,
            subject=principal.subject,
            username=principal.username,
            tokens=self._cipher.seal(tokens, session=id_hash),
            expires_at=expires_at,
            now=_utc(now),
        )
        _log.info("dashboard sign-in", username=principal.username, admin=principal.is_admin)
        return NewSession(session_id=session_id, expires_at=expires_at, principal=principal)

    async def resolve(self, session_id: str) -> Principal | None:
        """The principal of a session, its tokens refreshed first when they expire within
        REFRESH_MARGIN_SECONDS. None when there is no such session, it expired, the issuer refused
        the refresh or the token does not hold up (the session is then deleted), or the issuer is
        unreachable while the access token has expired (the session is kept: the outage must not
        sign everyone out)."""
        return await self.resolve_by_hash(session_hash(session_id))

    async def resolve_by_hash(self, id_hash: str) -> Principal | None:
        """`resolve` for a session known by its id's hash (`session_hash`), as the row is: what a
        credential derived from the session carries (a lab's grant and cookie), so that it never
        holds the id that signs a browser in to the dashboard. None as `resolve`, and for anything
        that is not such a hash."""
        if not is_session_hash(id_hash):
            return None
        found = await self._load(id_hash)
        if found is None:
            return None
        row, tokens = found
        refreshed = False
        if tokens.expires_within(REFRESH_MARGIN_SECONDS, now=self._clock()):
            outcome = await self._refresh(id_hash, tokens)
            if outcome is None:
                return None
            tokens, refreshed = outcome
        try:
            principal = await self.client.principal(tokens)
        except IdentityProviderUnavailable:
            return None
        except InvalidToken as exc:
            _log.info("dashboard session ended: its token does not hold up", reason=exc.detail)
            await self._drop(id_hash)
            return None
        if principal.subject != row.subject:
            await self._drop(id_hash)
            return None
        if not refreshed and self._clock() - row.last_seen_at.timestamp() >= TOUCH_INTERVAL_SECONDS:
            await self._store.touch(id_hash, now=_utc(self._clock()))
        return principal

    async def end(self, session_id: str, *, post_logout_redirect_uri: str) -> str | None:
        """Delete the session; the issuer's end-session URL to send the browser to, or None when
        there was no session or the issuer offers none."""
        id_hash = session_hash(session_id)
        row = await self._store.get(id_hash)
        if row is None:
            return None
        try:
            tokens: TokenSet | None = self._cipher.open(row.tokens, session=id_hash)
        except SealBroken:
            tokens = None
        id_token = None
        if tokens is not None:
            id_token = tokens.id_token
            # Signed out: the access token must stop working here now, not at its exp.
            self.client.verifier.revoke(tokens.access_token)
        await self._drop(id_hash)
        _log.info("dashboard sign-out", username=row.username)
        return await self.client.end_session_url(
            id_token_hint=id_token, post_logout_redirect_uri=post_logout_redirect_uri
        )

    async def _drop(self, id_hash: str) -> None:
        await self._store.delete(id_hash)
        for hook in self._end_hooks:
            hook(id_hash)

    async def _load(self, id_hash: str) -> tuple[StoredWebSession, TokenSet] | None:
        row = await self._store.get(id_hash)
        if row is None:
            return None
        if row.expires_at.timestamp() <= self._clock():
            await self._drop(id_hash)
            return None
        try:
            return row, self._cipher.open(row.tokens, session=id_hash)
        except SealBroken as exc:
            # Sealed under another NUFI_DASHBOARD_SESSION_SECRET (it was changed) or altered.
            _log.warning("dashboard session dropped: its tokens cannot be opened", reason=str(exc))
            await self._drop(id_hash)
            return None

    async def _refresh(self, id_hash: str, tokens: TokenSet) -> tuple[TokenSet, bool] | None:
        lock = self._refreshing.get(id_hash)
        if lock is None:
            lock = self._refreshing[id_hash] = asyncio.Lock()
        async with lock:
            # Another request may have refreshed while this one waited: use its tokens.
            found = await self._load(id_hash)
            if found is None:
                return None
            tokens = found[1]
            if not tokens.expires_within(REFRESH_MARGIN_SECONDS, now=self._clock()):
                return tokens, True
            try:
                fresh = await self.client.refresh(tokens)
            except IssuerRefused as exc:
                _log.info("dashboard session ended: the issuer refused to refresh it", reason=exc.detail)
                # The issuer ended the session, so its access token is over too, whatever its exp.
                self.client.verifier.revoke(tokens.access_token)
                await self._drop(id_hash)
                return None
            except IdentityProviderUnavailable as exc:
                if tokens.expires_within(0, now=self._clock()):
                    _log.warning("dashboard session not refreshed: issuer unreachable", reason=exc.detail)
                    return None
                return tokens, False
            sealed = self._cipher.seal(fresh, session=id_hash)
            if not await self._store.touch(id_hash, now=_utc(self._clock()), tokens=sealed):
                return None  # signed out meanwhile
            return fresh, True


def _utc(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=UTC)
