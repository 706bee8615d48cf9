"""The registry of open lab sockets: a session's end closes its sockets at once, a change of access
makes the project's sockets ask again at once, and nothing else wakes them before their check."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from nufi.workloads.labs.sockets import LabSockets

# Far longer than any test here waits: what ends a socket sooner is the signal, not the clock.
LONG = 3600.0


async def test_a_session_ending_closes_its_sockets_only_and_without_asking() -> None:
    sockets = LabSockets(check_seconds=LONG)
    asked: list[str] = []

    async def allowed() -> bool:
        asked.append("asked")
        return True

    with sockets.opened("p", "lab", "a" * 64) as mine, sockets.opened("p", "lab", "b" * 64) as other:
        mine_ends = asyncio.create_task(sockets.until_refused(mine, allowed))
        other_ends = asyncio.create_task(sockets.until_refused(other, allowed))
        sockets.session_ended("a" * 64)
        await asyncio.wait_for(mine_ends, timeout=LONG)
        assert not other_ends.done()
        other_ends.cancel()
    assert asked == []
    assert len(sockets) == 0


async def test_an_access_change_makes_the_projects_sockets_ask_at_once() -> None:
    sockets = LabSockets(check_seconds=LONG)
    answers = {"p": False, "q": False}
    asked: list[str] = []

    def asker(project: str) -> Callable[[], Awaitable[bool]]:
        async def allowed() -> bool:
            asked.append(project)
            return answers[project]

        return allowed

    with sockets.opened("p", "lab", None) as in_p, sockets.opened("q", "lab", None) as in_q:
        p_ends = asyncio.create_task(sockets.until_refused(in_p, asker("p")))
        q_ends = asyncio.create_task(sockets.until_refused(in_q, asker("q")))
        sockets.access_changed("p", "other-lab")
        sockets.access_changed("p")
        await asyncio.wait_for(p_ends, timeout=LONG)
        assert asked == ["p"]
        assert not q_ends.done()
        q_ends.cancel()


async def test_a_socket_asks_again_every_check() -> None:
    sockets = LabSockets(check_seconds=0.01)
    answers = iter([True, True, False])

    async def allowed() -> bool:
        return next(answers)

    with sockets.opened("p", "lab", None) as held:
        await asyncio.wait_for(sockets.until_refused(held, allowed), timeout=LONG)
    assert next(answers, None) is None
