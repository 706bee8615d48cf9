"""A part of one page that is built by an async function and rebuilt where it stands.

NiceGUI's `ui.refreshable_method` keeps the targets of every page in one object per class and prunes
them only when some page refreshes, so a closed page's elements stay referenced until another page
of the kind is drawn. This keeps nothing beyond its own page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui


class Rebuilt:
    def __init__(self, build: Callable[[], Awaitable[None]]) -> None:
        self._build = build
        self._area: ui.column | None = None

    async def show(self) -> None:
        """Build it at the current place in the page the first time (or when what held it was
        rebuilt), else again in its own place."""
        if self._area is None or self._area.is_deleted:
            self._area = ui.column().classes("w-full")
        else:
            self._area.clear()
        with self._area:
            await self._build()
