"""Who a snapshot is shown to, as a value: readers with the same audience see the same masked snapshot.

Masking (`nufi.monitoring.snapshots.masking`) hides other projects' pod names from non-admins, so a snapshot
page is not the same bytes for everyone. But it is the same for everyone who may see the same names:
an `Audience` names that group (everyone sees everything, nobody sees any name, or a set of hidden
namespaces), so a page rendered for one reader can be answered to every reader of its audience, and
never to anyone else.
"""

from __future__ import annotations

from typing import Final, Literal

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.monitoring.snapshots.masking import NamespaceVisibility, hidden_in, hide_all, mask_snapshot
from nufi.monitoring.snapshots.snapshot import Snapshot

# Every name shown; or none, when who may see what cannot be known (the cluster cannot be read).
SEES_ALL: Final = "all"
SEES_NONE: Final = "none"
Audience = Literal["all", "none"] | frozenset[str]


class Audiences:
    def __init__(self, visibility: NamespaceVisibility | None) -> None:
        # None: no projects, so every reader sees every name.
        self._visibility = visibility

    async def of(self, principal: Principal | None) -> Audience:
        """The audience `principal` belongs to: the namespaces whose pod names they may not see."""
        if self._visibility is None:
            return SEES_ALL
        try:
            hidden = await self._visibility.hidden_namespaces(principal)
        except NufiError:
            # Not knowing whose projects are whose hides every name rather than the whole snapshot.
            return SEES_NONE
        return hidden if hidden else SEES_ALL

    @staticmethod
    def masked(snapshot: Snapshot, audience: Audience) -> Snapshot:
        """`snapshot` as `audience` may see it."""
        if audience == SEES_ALL:
            return snapshot
        if audience == SEES_NONE:
            return mask_snapshot(snapshot, hide_all)
        assert isinstance(audience, frozenset)
        return mask_snapshot(snapshot, hidden_in(audience))
