"""Looking after the sandbox's programs once they are ready: one that exits is started again after a
back-off (1 s, doubling up to 30 s, back to 1 s after a minute's good run), with a line saying what
happened and another once it answers again; with `stop_on_failure` the first exit is an error instead.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import httpx

from nufi_sandbox.processes import ManagedProcess
from nufi_sandbox.sandbox.errors import SandboxError

# Restarting a program that exited: the first wait, the longest, and the run that resets the wait.
RESTART_FIRST_DELAY = 1.0
RESTART_MAX_DELAY = 30.0
RESTART_HEALTHY_RUN = 60.0


@dataclass
class Supervised:
    """A program the sandbox looks after once it is ready."""

    process: ManagedProcess
    answers: Callable[[], Awaitable[bool]]
    started: float = field(default_factory=time.monotonic)
    delay: float = 0.0
    restart_at: float | None = None
    awaiting_answer: bool = False


class Supervisor:
    def __init__(
        self,
        units: Sequence[Supervised],
        *,
        stop_on_failure: bool,
        announce: Callable[[str], None],
        record: Callable[[], None],
    ) -> None:
        self.units = list(units)
        self._stop_on_failure = stop_on_failure
        self._announce = announce
        self._record = record

    async def look_after_all(self) -> None:
        for unit in self.units:
            await self.look_after(unit)

    async def look_after(self, unit: Supervised) -> None:
        now = time.monotonic()
        if unit.restart_at is not None:
            if now >= unit.restart_at:
                unit.restart_at = None
                self._restart(unit, now)
            return
        process = unit.process
        code = process.returncode
        if code is None:
            if unit.awaiting_answer and await answers_now(unit.answers):
                unit.awaiting_answer = False
                self._announce(f"{unit.process.name} is answering again (pid {process.pid})")
            return
        exited = f"{process.name} exited unexpectedly (code {code})"
        if self._stop_on_failure:
            raise SandboxError(f"{exited}; last lines of {process.log_path}:\n{process.log_tail(15)}")
        ran = now - unit.started
        if unit.delay == 0.0 or ran >= RESTART_HEALTHY_RUN:
            unit.delay = RESTART_FIRST_DELAY
        else:
            unit.delay = min(unit.delay * 2, RESTART_MAX_DELAY)
        unit.restart_at = now + unit.delay
        self._announce(
            f"{exited} after {ran:.0f} s; restarting it in {unit.delay:g} s. "
            f"Last lines of {process.log_path}:\n{process.log_tail(5)}"
        )

    def _restart(self, unit: Supervised, now: float) -> None:
        try:
            unit.process.restart()
        except OSError as exc:
            unit.delay = min(max(unit.delay, RESTART_FIRST_DELAY) * 2, RESTART_MAX_DELAY)
            unit.restart_at = now + unit.delay
            self._announce(f"cannot restart {unit.process.name}: {exc}; trying again in {unit.delay:g} s")
            return
        unit.started = now
        unit.awaiting_answer = True
        self._record()
        self._announce(f"{unit.process.name} restarted (pid {unit.process.pid})")


async def answers_now(check: Callable[[], Awaitable[bool]]) -> bool:
    try:
        return await check()
    except (httpx.HTTPError, ValueError):
        return False
