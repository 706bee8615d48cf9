"""Start, watch and stop the real programs behind the sandbox and the integration tests.

Every program runs in its own process group so that stopping it also stops whatever it spawned,
writes its output to a log file whose tail ends up in error messages, and is stopped by PID.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import inspect
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

ReadinessCheck = Callable[[], Awaitable[bool]] | Callable[[], bool]

_PR_SET_CHILD_SUBREAPER = 36
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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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


class ManagedProcess:
    """One long-running program: started in its own session, logged to a file, stopped by PID.

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
        with open(self._log_path, "ab") as log:
            self._popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self._cwd,
                start_new_session=True,
            )
        return self

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
            _signal_group(popen.pid, signal.SIGTERM)
            try:
                popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                _signal_group(popen.pid, signal.SIGKILL)
                popen.wait()
        # Members of the group that outlived their leader would otherwise keep ports and files busy.
        # The group id stays reserved while a member lives, so seen members really are ours.
        if _group_members(popen.pid):
            _signal_group(popen.pid, signal.SIGKILL)
        self._stopped = True
        return popen.returncode

    async def stop_async(self, grace: float = 5.0) -> int | None:
        return await asyncio.to_thread(self.stop, grace)

    def __enter__(self) -> Self:
        if self._popen is None:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

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


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


# --- Looking at processes by PID through /proc (Linux) ---------------------------------------------


@dataclass(frozen=True)
class ProcStat:
    """The few fields of /proc/<pid>/stat the harness needs."""

    pid: int
    comm: str
    state: str
    ppid: int
    pgrp: int


def parse_proc_stat(line: str) -> ProcStat:
    """Parse one /proc/<pid>/stat line; the command name may itself contain spaces and parentheses."""
    pid_part, _, rest = line.partition(" (")
    comm, _, after = rest.rpartition(") ")
    fields = after.split()
    if not pid_part.strip().isdigit() or len(fields) < 3:
        raise ValueError(f"not a /proc/<pid>/stat line: {line!r}")
    return ProcStat(int(pid_part), comm, fields[0], int(fields[1]), int(fields[2]))


def read_proc_stat(pid: int) -> ProcStat | None:
    try:
        return parse_proc_stat(Path(f"/proc/{pid}/stat").read_text())
    except (FileNotFoundError, ProcessLookupError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    """True while `pid` runs. A zombie counts as gone, and is reaped if it is our child."""
    stat = read_proc_stat(pid)
    if stat is None:
        return False
    if stat.state in ("Z", "X"):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        return False
    return True


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def describe_pid(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return f"pid {pid} (gone)"
    command = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
    return f"pid {pid}: {command or '?'}"


def live_children(parent: int | None = None) -> list[int]:
    """PIDs of the running (non-zombie) direct children of `parent` (default: this process)."""
    parent = os.getpid() if parent is None else parent
    return sorted(s.pid for s in _all_stats() if s.ppid == parent and pid_alive(s.pid))


def become_subreaper() -> bool:
    """Adopt orphaned descendants (such as daemonised postmasters), so live_children() sees them.

    Returns False where the kernel offers no such thing; the caller then only sees direct children.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def kill_tree(pid: int) -> None:
    """SIGKILL `pid`, its process group when it leads one, and every descendant."""
    doomed = [pid, *_descendants(pid)]
    stat = read_proc_stat(pid)
    if stat is not None and stat.pgrp == pid:
        _signal_group(pid, signal.SIGKILL)
    for victim in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)
    for victim in doomed:
        wait_gone(victim, timeout=2.0)


def _group_members(pgid: int) -> list[int]:
    return [s.pid for s in _all_stats() if s.pgrp == pgid and s.state not in ("Z", "X")]


def _descendants(pid: int) -> list[int]:
    by_parent: dict[int, list[int]] = {}
    for stat in _all_stats():
        by_parent.setdefault(stat.ppid, []).append(stat.pid)
    found: list[int] = []
    frontier = [pid]
    while frontier:
        children = by_parent.get(frontier.pop(), [])
        found.extend(children)
        frontier.extend(children)
    return found


def _all_stats() -> Iterator[ProcStat]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = read_proc_stat(int(entry.name))
            if stat is not None:
                yield stat
