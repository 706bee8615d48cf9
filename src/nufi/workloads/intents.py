"""Recording workload changes so that a crash at any point leaves nothing half-made or unaudited.

A service wraps each cluster change in `Recorder.change(...)`: the intent (who, what, which object,
the planned state) is committed before the block runs, and turned into the audit record after it
succeeds. When the block fails after touching the cluster, the service has already undone what it
could; the intent's settler then looks at the cluster and settles it at once (finished, undone, or
dropped when nothing happened), and when even that cannot be done (Kubernetes or the database
unreachable) the intent stays open for the reconciler (`workloads/reconcile.py`), which settles it
the same way after a crash.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from nufi.auth import Principal, require_user
from nufi.cluster.workload_apply import Refused
from nufi.db.intents import Intent, IntentStore
from nufi.db.tables import JsonObject
from nufi.errors import NufiError
from nufi.logging import get_logger

_log = get_logger("nufi.workloads.intents")

# What a settler decides: the intent's change is complete (the record says `after`), or did not happen.
Settler = Callable[[Intent], Awaitable["Outcome"]]


@dataclass(frozen=True)
class Outcome:
    """How an intent ended, as its settler found the cluster: `done` with the state to record, or not."""

    done: bool
    after: JsonObject | None = None

    @classmethod
    def complete(cls, after: JsonObject | None = None) -> Outcome:
        return cls(True, after)

    @classmethod
    def nothing(cls) -> Outcome:
        return cls(False)


@dataclass
class Change:
    """The change under way: the service sets `touched` before its first cluster write (until then a
    failure means nothing happened) and may replace `after` with what the cluster answered."""

    intent: Intent
    after: JsonObject | None
    touched: bool = False
    details: JsonObject | None = None


def acting(principal: Principal | None) -> Principal:
    """The signed-in caller a change is recorded for (401 without one)."""
    require_user(principal)
    assert principal is not None
    return principal


def replica_identity() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


@dataclass
class Recorder:
    store: IntentStore
    holder: str = field(default_factory=replica_identity)
    settlers: dict[str, Settler] = field(default_factory=dict)

    def register(self, target_kind: str, settler: Settler) -> None:
        self.settlers[target_kind] = settler

    @asynccontextmanager
    async def change(
        self,
        principal: Principal,
        action: str,
        target_kind: str,
        target_id: str,
        *,
        before: Mapping[str, Any] | None = None,
        after: Mapping[str, Any] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[Change]:
        intent = await self.store.open(
            actor=principal.username,
            action=action,
            target_kind=target_kind,
            target_id=target_id,
            holder=self.holder,
            before=None if before is None else dict(before),
            after=None if after is None else dict(after),
            details=None if details is None else dict(details),
        )
        change = Change(intent, intent.after)
        try:
            yield change
        except Exception:
            if not change.touched:
                await self._quietly(self.store.abandon(intent), intent)
            else:
                await self._quietly(self.settle(intent), intent)
            raise
        await self.store.complete(intent, after=change.after, details=change.details)

    async def settle(self, intent: Intent) -> bool:
        """Look at the cluster and settle the intent: audited when its change is complete, dropped
        when it did not happen (the settler undoes a half-made object first). False when no settler
        knows its kind (it is left open)."""
        settler = self.settlers.get(intent.target_kind)
        if settler is None:
            return False
        outcome = await settler(intent)
        if outcome.done:
            await self.store.complete(intent, after=outcome.after)
            _log.info("intent completed", action=intent.action, target=intent.target_id, id=intent.id)
        else:
            await self.store.abandon(intent)
            _log.info("intent dropped", action=intent.action, target=intent.target_id, id=intent.id)
        return True

    async def _quietly(self, work: Awaitable[Any], intent: Intent) -> None:
        # The caller's failure is what it must hear; an intent that cannot be settled now stays open
        # for the reconciler.
        try:
            await work
        except (NufiError, Refused) as exc:
            _log.warning(
                "intent left open for the reconciler", action=intent.action, id=intent.id, error=str(exc)
            )
