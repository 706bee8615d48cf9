"""What the provider remembers between requests: pending authorization codes and ended sessions.

Kept in memory: a restart forgets codes (they live a minute anyway) and logouts.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

CODE_LIFESPAN_SECONDS = 60


@dataclass(frozen=True)
class PendingCode:
    client_id: str
    redirect_uri: str
    username: str
    scope: str
    sid: str
    auth_time: int
    expires_at: float
    nonce: str | None = None
    code_challenge: str | None = None


class SessionStore:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._codes: dict[str, PendingCode] = {}
        self._ended: set[str] = set()

    def new_session(self) -> str:
        return str(uuid.uuid4())

    def end_session(self, sid: str) -> None:
        self._ended.add(sid)

    def is_active(self, sid: str) -> bool:
        return sid not in self._ended

    def issue_code(
        self,
        *,
        client_id: str,
        redirect_uri: str,
        username: str,
        scope: str,
        sid: str,
        nonce: str | None,
        code_challenge: str | None,
    ) -> str:
        now = self._clock()
        self._forget_expired(now)
        code = secrets.token_urlsafe(32)
        self._codes[code] = PendingCode(
            client_id=client_id,
            redirect_uri=redirect_uri,
            username=username,
            scope=scope,
            sid=sid,
            auth_time=int(now),
            expires_at=now + CODE_LIFESPAN_SECONDS,
            nonce=nonce,
            code_challenge=code_challenge,
        )
        return code

    def redeem_code(self, code: str) -> PendingCode | None:
        """The code's grant, once: a second redemption gets None, as does an expired code."""
        pending = self._codes.pop(code, None)
        if pending is None or pending.expires_at < self._clock():
            return None
        return pending

    def _forget_expired(self, now: float) -> None:
        for code in [c for c, p in self._codes.items() if p.expires_at < now]:
            del self._codes[code]
