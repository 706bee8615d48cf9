"""The Add Device wizard's drafts in the database: one row per open wizard, found by its id and owner.

Like the session store, this one runs its own short transactions: a draft is written by itself,
never together with another change, and a reload served by another replica must find the last save.
Every read and write names the owner, so a draft id of someone else's finds nothing and changes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import delete, select, update

from nufi.db.session import SessionFactory, transaction
from nufi.db.tables import WizardDraftRow


class WizardDraftStore:
    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def create(
        self, *, draft_id: str, owner: str, data: Mapping[str, str], now: datetime, forget_before: datetime
    ) -> None:
        """Store a new draft, and forget the drafts nobody touched since `forget_before` while at it
        (opening the wizard is rare enough to pay for the sweep)."""
        async with transaction(self._sessions) as session:
            await session.execute(delete(WizardDraftRow).where(WizardDraftRow.updated_at < forget_before))
            session.add(
                WizardDraftRow(id=draft_id, owner=owner, data=dict(data), created_at=now, updated_at=now)
            )

    async def get(self, draft_id: str, owner: str) -> WizardDraftRow | None:
        async with self._sessions() as session:
            found = await session.execute(
                select(WizardDraftRow).where(WizardDraftRow.id == draft_id, WizardDraftRow.owner == owner)
            )
            return found.scalar_one_or_none()

    async def save(self, draft_id: str, owner: str, data: Mapping[str, str], *, now: datetime) -> bool:
        """Replace the draft's data; False when there is no such draft of `owner` (deleted meanwhile,
        perhaps in another tab or on another replica)."""
        async with transaction(self._sessions) as session:
            result = await session.execute(
                update(WizardDraftRow)
                .where(WizardDraftRow.id == draft_id, WizardDraftRow.owner == owner)
                .values(data=dict(data), updated_at=now)
            )
        return bool(getattr(result, "rowcount", 0))

    async def delete(self, draft_id: str, owner: str) -> None:
        async with transaction(self._sessions) as session:
            await session.execute(
                delete(WizardDraftRow).where(WizardDraftRow.id == draft_id, WizardDraftRow.owner == owner)
            )
