"""Looking at processes by PID through /proc (Linux), and signalling them and their process groups."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36


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
    return _poll(lambda: not pid_alive(pid), timeout, interval=0.05)


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


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send `sig` to process group `pgid`; a group that is gone already is no error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_members(pgid: int) -> list[int]:
    """The running (non-zombie) members of process group `pgid`."""
    return [s.pid for s in _all_stats() if s.pgrp == pgid and s.state not in ("Z", "X")]


def kill_group(pgid: int, timeout: float = 5.0) -> bool:
    """SIGKILL process group `pgid` and wait until no member runs; False if some still did at `timeout`.

    Signals are delivered asynchronously, so a member can still show as running just after the kill.
    """
    signal_group(pgid, signal.SIGKILL)
    return _poll(lambda: not group_members(pgid), timeout, interval=0.02)


def kill_tree(pid: int) -> None:
    """SIGKILL `pid`, its process group when it leads one, and every descendant."""
    doomed = [pid, *_descendants(pid)]
    stat = read_proc_stat(pid)
    if stat is not None and stat.pgrp == pid:
        signal_group(pid, signal.SIGKILL)
    for victim in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)
    for victim in doomed:
        wait_gone(victim, timeout=2.0)


def _poll(done: Callable[[], bool], timeout: float, interval: float) -> bool:
    """Whether `done()` became true within `timeout` seconds, asking every `interval` seconds."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
    return True


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
