"""The Add Device wizard's drafts: what an admin has typed so far, kept in the database until they
save it or start over, so a reload on any replica, even after a restart, resumes the wizard.

A draft is the wizard's flat dict of strings (`nufi.ui.wizard.draft`); this module neither reads nor
checks its fields, the catalog does that on Save. The rows are kept by a store the database
implements (`nufi.db.wizard_drafts.WizardDraftStore`; `devices` is above `db` and `db` may not
import it back, so the store is described here as a protocol and handed in by `nufi.services`).
A draft belongs to the person who started it: every method takes the caller's principal, only admins
may use it, and another person's draft id is treated as one that does not exist.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from nufi.auth import Principal, require_admin
from nufi.errors import ValidationFailed

# A draft nobody has touched for this long is forgotten (when the next one is created).
DRAFT_LIFETIME = timedelta(days=7)
# Far above what the wizard's fields hold (each expression is bounded by the PromQL limits), far
# below what would make a row a burden.
MAX_DRAFT_CHARS = 256_000


class StoredDraft(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...
    @property
    def updated_at(self) -> datetime: ...


class WizardDraftStore(Protocol):
    async def create(
        self, *, draft_id: str, owner: str, data: Mapping[str, str], now: datetime, forget_before: datetime
    ) -> None: ...
    async def get(self, draft_id: str, owner: str) -> StoredDraft | None: ...
    async def save(self, draft_id: str, owner: str, data: Mapping[str, str], *, now: datetime) -> bool: ...
    async def delete(self, draft_id: str, owner: str) -> None: ...


def _utc_now() -> datetime:
    return datetime.now(UTC)


class WizardDrafts:
    def __init__(self, store: WizardDraftStore, *, clock: Callable[[], datetime] = _utc_now) -> None:
        self._store = store
        self._clock = clock

    async def create(self, principal: Principal | None, data: Mapping[str, str]) -> str:
        """A new draft holding `data`; its id (random, URL-safe) is what finds it again."""
        owner = require_admin(principal).subject
        now = self._clock()
        draft_id = secrets.token_urlsafe(16)
        await self._store.create(
            draft_id=draft_id, owner=owner, data=_checked(data), now=now, forget_before=now - DRAFT_LIFETIME
        )
        return draft_id

    async def get(self, principal: Principal | None, draft_id: str) -> dict[str, str] | None:
        """The draft's data; None when there is no such draft of this person's (never was, deleted,
        expired, or started by someone else)."""
        owner = require_admin(principal).subject
        row = await self._store.get(draft_id, owner)
        if row is None or row.updated_at <= self._clock() - DRAFT_LIFETIME:
            return None
        return {str(key): value for key, value in row.data.items() if isinstance(value, str)}

    async def save(self, principal: Principal | None, draft_id: str, data: Mapping[str, str]) -> bool:
        """Replace the draft's data; False when the draft is gone (saved or started over in another
        tab, or on another replica). ValidationFailed when `data` is implausibly large."""
        owner = require_admin(principal).subject
        return await self._store.save(draft_id, owner, _checked(data), now=self._clock())

    async def delete(self, principal: Principal | None, draft_id: str) -> None:
        owner = require_admin(principal).subject
        await self._store.delete(draft_id, owner)


def _checked(data: Mapping[str, str]) -> dict[str, str]:
    values = {str(key): str(value) for key, value in data.items()}
    if len(json.dumps(values)) > MAX_DRAFT_CHARS:
        raise ValidationFailed(code="draft.too_large", params={"limit": MAX_DRAFT_CHARS})
    return values
