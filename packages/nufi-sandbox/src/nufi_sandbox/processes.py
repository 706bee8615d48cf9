"""Start, watch and stop the real programs behind the sandbox and the integration tests.

Every program runs in its own process group so that stopping it also stops whatever it spawned,
writes its output to a log file whose tail ends up in error messages, and is stopped by PID. It also
dies with its parent: each gets the parent-death signal (SIGKILL) before it executes, so a launcher
killed with `kill -9` leaves nothing running. Start programs from the main thread: the kernel sends
that signal when the thread that started the program ends.
"""

from __future__ import annotations

import asyncio
import errno
import inspect
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from nufi_sandbox.pids import (
    ProcStat,
    become_subreaper,
    describe_pid,
    dying_with_parent,
    group_members,
    kill_group,
    kill_tree,
    live_children,
    parse_proc_stat,
    pid_alive,
    read_proc_stat,
    signal_group,
    wait_gone,
)
from nufi_sandbox.ports import free_port

# The /proc helpers live in pids and free_port in ports; the sandbox and the tests import them from here.
__all__ = [
    "ManagedProcess",
    "MissingBinaryError",
    "ProcStat",
    "ProcessNotReadyError",
    "ReadinessCheck",
    "StopOnExit",
    "become_subreaper",
    "describe_pid",
    "free_port",
    "kill_tree",
    "live_children",
    "parse_proc_stat",
    "pid_alive",
    "read_proc_stat",
    "require_binary",
    "wait_gone",
]

ReadinessCheck = Callable[[], Awaitable[bool]] | Callable[[], bool]

_POLL_INTERVAL = 0.1
_TAIL_BYTES = 64 * 1024


class MissingBinaryError(RuntimeError):
    """A program the sandbox or the tests need is not installed."""


class ProcessNotReadyError(RuntimeError):
    """A started program died or did not become ready in time."""

    def __init__(self, message: str, *, returncode: int | None, log_tail: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.log_tail = log_tail


def require_binary(name: str, candidates: Sequence[str | Path], debian_package: str) -> Path:
    """The first executable among `candidates`, else `name` on PATH, else an error saying how to get it."""
    for candidate in candidates:
        path = Path(candidate)
        if path.is_file() and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found is not None:
        return Path(found)
    looked_in = ", ".join(str(c) for c in candidates) or "nowhere"
    raise MissingBinaryError(
        f"{name} not found (looked in {looked_in} and on PATH). "
        f"Run `make setup` as root, or `apt-get install {debian_package}`."
    )


class StopOnExit:
    """`with thing:` starts `thing` on entry and stops it on exit, whatever happened inside."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> object:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class ManagedProcess(StopOnExit):
    """One long-running program: started in its own session, logged to a file, stopped by PID, and
    killed by the kernel when the thread that started it ends.

    `env` is laid over the inherited environment. stdout and stderr go to `<log_dir>/<name>.log`.
    """

    def __init__(
        self,
        name: str,
        argv: Sequence[str | Path],
        *,
        log_dir: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = [str(a) for a in argv]
        self._log_path = log_dir / f"{name}.log"
        self._env = env
        self._cwd = cwd
        self._popen: subprocess.Popen[bytes] | None = None
        self._stopped = False

    @property
    def log_path(self) -> Path:
        return self._log_path

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise RuntimeError(f"{self.name} has not been started")
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the program has ended (negative: killed by that signal), else None."""
        return None if self._popen is None else self._popen.poll()

    def is_running(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def start(self) -> Self:
        if self._popen is not None:
            raise RuntimeError(f"{self.name} was already started (pid {self._popen.pid})")
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        if self._env is not None:
            env.update(self._env)
        # The helper execs the program: a missing one must still fail here, as Popen would.
        if shutil.which(self.argv[0], path=env.get("PATH")) is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.argv[0])
        with open(self._log_path, "ab") as log:
            self._popen = subprocess.Popen(
                dying_with_parent(self.argv),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self._cwd,
                start_new_session=True,
            )
        return self

    def restart(self) -> Self:
        """Start the program again with the same command line, once what is left of it is stopped."""
        self.stop()
        self._popen = None
        self._stopped = False
        return self.start()

    def log_tail(self, lines: int = 30) -> str:
        try:
            with open(self._log_path, "rb") as log:
                # A chatty server can log megabytes; the end is all an error message needs.
                log.seek(max(0, log.seek(0, os.SEEK_END) - _TAIL_BYTES))
                text = log.read().decode(errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def wait_ready(self, check: ReadinessCheck, timeout: float = 30.0, what: str = "ready") -> None:
        """Block until `check()` is true; raise ProcessNotReadyError if the program dies or time runs out.

        A check that raises counts as "not yet": servers refuse connections while they start.
        An async check is driven on a private event loop, so call this outside a running loop.
        """
        deadline = time.monotonic() + timeout
        last_error: BaseException | None = None
        while True:
            self._raise_if_exited(what)
            try:
                result = check()
                if inspect.isawaitable(result):
                    result = _run_awaitable(result)
                if result:
                    return
            except Exception as exc:
                last_error = exc
            if time.monotonic() >= deadline:
                self._raise_timeout(what, timeout, last_error)
            time.sleep(_POLL_INTERVAL)

    async def wait_ready_async(
        self,
        check: ReadinessCheck,
        timeout: float = 30.0,  # noqa: ASYNC109 - the same deadline semantics as wait_ready
        what: str = "ready",
    ) -> None:
        """The event-loop friendly twin of wait_ready: accepts sync and async checks."""
        deadline = time.monotonic() + timeout
        last_error: BaseException | None = None
        while True:
            self._raise_if_exited(what)
            try:
                result = check()
                if inspect.isawaitable(result):
                    result = await result
                if result:
                    return
            except Exception as exc:
                last_error = exc
            if time.monotonic() >= deadline:
                self._raise_timeout(what, timeout, last_error)
            await asyncio.sleep(_POLL_INTERVAL)

    def stop(self, grace: float = 5.0) -> int | None:
        """SIGTERM the whole group, SIGKILL it after `grace` seconds, reap. Safe to call more than once."""
        if self._popen is None:
            return None
        popen = self._popen
        if self._stopped:
            return popen.returncode
        if popen.poll() is None:
            signal_group(popen.pid, signal.SIGTERM)
            try:
                popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                signal_group(popen.pid, signal.SIGKILL)
                popen.wait()
        # Members of the group that outlived their leader would otherwise keep ports and files busy.
        # The group id stays reserved while a member lives, so seen members really are ours.
        if group_members(popen.pid):
            kill_group(popen.pid)
        self._stopped = True
        return popen.returncode

    async def stop_async(self, grace: float = 5.0) -> int | None:
        return await asyncio.to_thread(self.stop, grace)

    def __enter__(self) -> Self:
        # Entering a process that is already running takes it over rather than failing.
        return self if self._popen is not None else self.start()

    def __repr__(self) -> str:
        pid = "not started" if self._popen is None else f"pid {self._popen.pid}"
        return f"<ManagedProcess {self.name} {pid}>"

    def _raise_if_exited(self, what: str) -> None:
        if self._popen is None:
            raise RuntimeError(f"{self.name} has not been started")
        code = self._popen.poll()
        if code is not None:
            tail = self.log_tail()
            raise ProcessNotReadyError(
                f"{self.name} exited with code {code} before it was {what}. "
                f"Last lines of {self._log_path}:\n{tail}",
                returncode=code,
                log_tail=tail,
            )

    def _raise_timeout(self, what: str, timeout: float, last_error: BaseException | None) -> None:
        tail = self.log_tail()
        last = f" Last check error: {last_error!r}." if last_error is not None else ""
        raise ProcessNotReadyError(
            f"{self.name} (pid {self.pid}) was not {what} within {timeout:g}s.{last} "
            f"Last lines of {self._log_path}:\n{tail}",
            returncode=None,
            log_tail=tail,
        )


def _run_awaitable(awaitable: Awaitable[bool]) -> bool:
    async def wrapper() -> bool:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrapper())
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise RuntimeError("an async readiness check inside a running event loop needs wait_ready_async")
