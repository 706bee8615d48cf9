"""Dashboard sessions in the database: one row per signed-in browser, found by the id's hash.

Unlike the other repositories this store runs its own short transactions: a session is read and
written by itself, never together with another change, and every replica must see a write at once
(a refresh on one replica, a sign-out on another).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update

from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import WebSessionRow


class WebSessionStore:
    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def create(
        self, *, id_hash: str, subject: str, username: str, tokens: str, expires_at: datetime, now: datetime
    ) -> None:
        """Store a new session, and forget the expired ones while at it (sign-in is rare enough to
        pay for the sweep, and nothing else removes sessions nobody comes back to)."""
        async with transaction(self._sessions) as session:
            await session.execute(delete(WebSessionRow).where(WebSessionRow.expires_at <= now))
            session.add(
                WebSessionRow(
                    id_hash=id_hash,
                    subject=subject,
                    username=username,
                    tokens=tokens,
                    expires_at=expires_at,
                    created_at=now,
                    last_seen_at=now,
                )
            )

    async def get(self, id_hash: str) -> WebSessionRow | None:
        async with self._sessions() as session:
            return await session.get(WebSessionRow, id_hash)

    async def touch(self, id_hash: str, *, now: datetime, tokens: str | None = None) -> bool:
        """Record a visit, with the refreshed tokens when there are some; False when the session is
        gone (signed out meanwhile, perhaps on another replica)."""
        values: dict[str, object] = {"last_seen_at": now}
        if tokens is not None:
            values["tokens"] = tokens
        async with transaction(self._sessions) as session:
            result = await session.execute(
                update(WebSessionRow).where(WebSessionRow.id_hash == id_hash).values(**values)
            )
        return bool(getattr(result, "rowcount", 0))

    async def delete(self, id_hash: str) -> None:
        async with transaction(self._sessions) as session:
            await session.execute(delete(WebSessionRow).where(WebSessionRow.id_hash == id_hash))
