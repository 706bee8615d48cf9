"""WebSessions.resolve over an in-memory store and a stand-in issuer: when a session is refreshed,
kept, or ended."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import pytest

from nufi.auth import IdentityProviderUnavailable, InvalidToken, JwksCache, Principal, TokenVerifier
from nufi.auth.web_login import PendingLogin
from nufi.auth.web_oidc import DashboardClient, IssuerRefused
from nufi.auth.web_sessions import StoredWebSession, WebSessions, session_hash
from nufi.auth.web_tokens import TokenSet

NOW = 1_800_000_000.0
ALICE = Principal(subject="sub-alice", username="alice", roles=frozenset())


@dataclass
class Row:
    subject: str
    username: str
    tokens: str
    expires_at: datetime
    last_seen_at: datetime


class MemoryStore:
    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}

    async def create(
        self, *, id_hash: str, subject: str, username: str, tokens: str, expires_at: datetime, now: datetime
    ) -> None:
        self.rows[id_hash] = Row(subject, username, tokens, expires_at, now)

    async def get(self, id_hash: str) -> StoredWebSession | None:
        return self.rows.get(id_hash)

    async def touch(self, id_hash: str, *, now: datetime, tokens: str | None = None) -> bool:
        row = self.rows.get(id_hash)
        if row is None:
            return False
        self.rows[id_hash] = replace(row, last_seen_at=now, tokens=tokens or row.tokens)
        return True

    async def delete(self, id_hash: str) -> None:
        self.rows.pop(id_hash, None)


async def _no_keys() -> Mapping[str, Any]:
    return {"keys": []}


class StandInIssuer(DashboardClient):
    """Issues tokens living `lifespan` seconds; `refusal` / `outage` make refreshes fail."""

    def __init__(self, clock: list[float], lifespan: float) -> None:
        super().__init__(
            verifier=TokenVerifier(issuer="https://idp.test/realms/r", keys=JwksCache(_no_keys)),
            client_id="nufi-dashboard",
            client_secret="s",
        )
        self.clock = clock
        self.lifespan = lifespan
        self.refreshes = 0
        self.refusal = False
        self.outage = False

    def tokens(self) -> TokenSet:
        return TokenSet(f"access-{self.refreshes}", self.clock[0] + self.lifespan, "refresh", "id")

    async def exchange(self, code: str, login: PendingLogin) -> tuple[TokenSet, Principal]:
        return self.tokens(), ALICE

    async def refresh(self, tokens: TokenSet) -> TokenSet:
        await asyncio.sleep(0)  # lets concurrent callers pile up behind the lock
        if self.outage:
            raise IdentityProviderUnavailable(code="idp.token_status", params={"url": "x", "status": 502})
        if self.refusal:
            raise IssuerRefused(
                code="issuer.refused", params={"description": "Session not active"}, error="invalid_grant"
            )
        self.refreshes += 1
        return tokens.refreshed(replace(self.tokens(), refresh_token=None, id_token=None))

    async def principal(self, tokens: TokenSet) -> Principal:
        if tokens.access_expires_at < self.clock[0]:
            raise InvalidToken(code="auth.token_expired")
        return ALICE

    async def end_session_url(
        self, *, id_token_hint: str | None, post_logout_redirect_uri: str
    ) -> str | None:
        return None

    def remember(self, access_token: str) -> None:
        """As a bearer verification of `access_token` would, so that forgetting it shows."""
        assert self.verifier.verified_tokens.put(access_token, ALICE, exp=time.time() + 3600, kid="k")


@pytest.fixture
def clock() -> list[float]:
    return [NOW]


@pytest.fixture
async def issuer(clock: list[float]) -> AsyncIterator[StandInIssuer]:
    stand_in = StandInIssuer(clock, lifespan=300)
    yield stand_in
    await stand_in.close()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


def sessions(issuer: StandInIssuer, store: MemoryStore, clock: list[float]) -> WebSessions:
    return WebSessions(
        client=issuer,
        store=store,
        secret="sixteen-characters!",
        lifetime_seconds=3600,
        clock=lambda: clock[0],
    )


async def signed_in(web: WebSessions) -> str:
    login = PendingLogin.start(redirect_uri="http://127.0.0.1/auth/callback", next_path="/")
    return (await web.finish("code", login)).session_id


async def test_a_fresh_token_is_used_as_it_is(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    assert await web.resolve(session) == ALICE
    assert issuer.refreshes == 0


async def test_a_token_within_a_minute_of_expiry_is_refreshed_once_for_concurrent_pages(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    clock[0] += 250
    assert await asyncio.gather(*(web.resolve(session) for _ in range(5))) == [ALICE] * 5
    assert issuer.refreshes == 1


async def test_an_unreachable_issuer_keeps_the_session(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    issuer.outage = True
    clock[0] += 250  # within the minute: served with the token it still has
    assert await web.resolve(session) == ALICE
    clock[0] += 100  # expired: nobody is signed in, but the session waits for the issuer
    assert await web.resolve(session) is None
    assert session_hash(session) in store.rows
    issuer.outage = False
    assert await web.resolve(session) == ALICE


async def test_a_refused_refresh_deletes_the_session(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    issuer.refusal = True
    clock[0] += 250
    assert await web.resolve(session) is None
    assert store.rows == {}


async def test_an_expired_session_is_deleted(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    clock[0] += 3601
    assert await web.resolve(session) is None
    assert store.rows == {}


async def test_a_session_sealed_under_another_secret_is_deleted(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    session = await signed_in(sessions(issuer, store, clock))
    rotated = WebSessions(
        client=issuer,
        store=store,
        secret="another-sixteen-chars",
        lifetime_seconds=3600,
        clock=lambda: clock[0],
    )
    assert await rotated.resolve(session) is None
    assert store.rows == {}


async def test_an_unknown_session_is_nobody(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    assert await sessions(issuer, store, clock).resolve("made-up") is None


async def test_a_session_resolves_by_its_ids_hash_as_by_its_id(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    by_hash = session_hash(session)
    assert await web.resolve_by_hash(by_hash) == ALICE
    clock[0] += 250  # within the minute: refreshed, once, through the hash too
    assert await asyncio.gather(*(web.resolve_by_hash(by_hash) for _ in range(3))) == [ALICE] * 3
    assert issuer.refreshes == 1
    issuer.refusal = True
    clock[0] += 250
    assert await web.resolve_by_hash(by_hash) is None
    assert store.rows == {}


async def test_an_expired_session_is_deleted_when_resolved_by_hash(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    clock[0] += 3601
    assert await web.resolve_by_hash(session_hash(session)) is None
    assert store.rows == {}


async def test_only_a_hash_resolves_by_hash(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    # The id is not its hash, and a row's key differently spelled names no session.
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    for not_a_hash in (session, session_hash(session).upper(), session_hash(session)[:-1], ""):
        assert await web.resolve_by_hash(not_a_hash) is None
    assert await web.resolve(session) == ALICE


async def test_signing_out_forgets_the_sessions_access_token_as_verified(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    issuer.remember("access-0")
    issuer.remember("another-callers-token")
    assert await web.end(session, post_logout_redirect_uri="http://127.0.0.1/") is None
    assert issuer.verifier.verified_tokens.get("access-0") is None
    assert issuer.verifier.verified_tokens.get("another-callers-token") is not None


async def test_a_refused_refresh_forgets_the_sessions_access_token_as_verified(
    issuer: StandInIssuer, store: MemoryStore, clock: list[float]
) -> None:
    web = sessions(issuer, store, clock)
    session = await signed_in(web)
    issuer.remember("access-0")
    issuer.remember("another-callers-token")
    issuer.refusal = True
    clock[0] += 250
    assert await web.resolve(session) is None
    assert issuer.verifier.verified_tokens.get("access-0") is None
    assert issuer.verifier.verified_tokens.get("another-callers-token") is not None
