"""The lab WebSockets open on this replica, so that they end when the right to them does.

A lab's terminal or kernel socket outlives the request that opened it by hours; HTTP asks who the
caller is on every request, a socket only once. Each open socket is therefore held here, by the lab
it reaches and the dashboard session its lab cookie was given for, and asks again — through the same
check HTTP makes — when something in this process says its right may be gone (the session signed
out, a member removed, the project or the lab deleted), and every `check_seconds` in any case: that
is how a session that expired, or a change made on another replica, closes it too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

# Asked by a socket whether its caller may still use it; False closes it.
StillAllowed = Callable[[], Awaitable[bool]]


@dataclass(eq=False)
class OpenLabSocket:
    project: str
    name: str
    # The dashboard session (its id's hash) a lab cookie was given for; None for a bearer token.
    session_hash: str | None
    ended: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class LabSockets:
    def __init__(self, *, check_seconds: float = 5.0) -> None:
        self.check_seconds = check_seconds
        self._open: set[OpenLabSocket] = set()

    def __len__(self) -> int:
        return len(self._open)

    @contextlib.contextmanager
    def opened(self, project: str, name: str, session_hash: str | None) -> Iterator[OpenLabSocket]:
        """Hold a socket to `project`'s lab `name` while the block runs."""
        held = OpenLabSocket(project, name, session_hash)
        self._open.add(held)
        try:
            yield held
        finally:
            self._open.discard(held)

    def session_ended(self, session_hash: str) -> None:
        """The dashboard session is over: every socket opened with a lab cookie of it ends now."""
        for held in list(self._open):
            if held.session_hash == session_hash:
                held.ended = True
                held.wake.set()

    def access_changed(self, project: str, name: str | None = None) -> None:
        """Who may reach the project's labs (or one lab of it) may have changed: its sockets ask now."""
        for held in list(self._open):
            if held.project == project and (name is None or held.name == name):
                held.wake.set()

    async def until_refused(self, held: OpenLabSocket, still_allowed: StillAllowed) -> None:
        """Return once `held` must close: its session ended, or `still_allowed` said no when woken
        or at the latest `check_seconds` after it last asked."""
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.check_seconds):
                    await held.wake.wait()
            held.wake.clear()
            if held.ended or not await still_allowed():
                return
