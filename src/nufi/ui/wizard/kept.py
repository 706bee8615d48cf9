"""An open wizard's draft as the page edits it: a dict of the fields that saves itself to the
database (`nufi.devices.drafts`) shortly after each change.

Typing changes a field on every key, so saves are coalesced: a change schedules one save
`SAVE_DELAY_SECONDS` later, and the changes made meanwhile go with it. Before the page moves to
another step it calls `flush`, which saves at once whatever is pending, so the next step (served by
any replica) reads everything typed here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, MutableMapping

from nicegui import background_tasks

from nufi.logging import get_logger

SAVE_DELAY_SECONDS = 0.3
# The name of the background task of a coalesced save (tests wait for none to be pending).
SAVE_TASK_NAME = "wizard draft save"
_log = get_logger("nufi.ui.wizard")

Saver = Callable[[dict[str, str]], Awaitable[bool]]


class KeptDraft(MutableMapping[str, str]):
    def __init__(self, draft_id: str, values: dict[str, str], save: Saver) -> None:
        self.id = draft_id
        self._values = values
        self._save = save
        self._dirty = False
        self._pending: asyncio.Task[None] | None = None
        # One save at a time, in the order of the changes: the last one stored is the newest.
        self._saving = asyncio.Lock()

    def __getitem__(self, key: str) -> str:
        return self._values[key]

    def __setitem__(self, key: str, value: str) -> None:
        if self._values.get(key) == value:
            return
        self._values[key] = value
        self._changed()

    def __delitem__(self, key: str) -> None:
        del self._values[key]
        self._changed()

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def _changed(self) -> None:
        self._dirty = True
        if self._pending is None:
            self._pending = background_tasks.create(self._save_later(), name=SAVE_TASK_NAME)

    async def _save_later(self) -> None:
        await asyncio.sleep(SAVE_DELAY_SECONDS)
        self._pending = None  # a change made while this save runs schedules the next one
        try:
            await self.flush()
        except Exception:  # the next change, or the step's flush, tries again
            _log.warning("saving a wizard draft failed", exc_info=True)

    async def flush(self) -> None:
        """Save what is not saved yet, now. Raises what the save raised (the changes stay pending)."""
        async with self._saving:
            if not self._dirty:
                return
            self._dirty = False
            try:
                # False when the draft was saved or started over in another tab meanwhile: nothing
                # to keep it in, and the next page opened with its id says the draft is gone.
                await self._save(dict(self._values))
            except BaseException:
                self._dirty = True
                raise
