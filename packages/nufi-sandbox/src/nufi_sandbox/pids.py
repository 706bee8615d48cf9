"""Looking at processes by PID through /proc (Linux), and signalling them and their process groups.

Also what keeps a launcher's programs from outliving it: the parent-death signal every program gets
before it executes, and a record of the programs started (PID and start time) that the next start
reads to stop what an earlier run left running.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
# The kernel's id of this boot: a PID and start time name one process only within one boot.
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


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


_HELPER = Path(__file__).with_name("die_with_parent.py")


def dying_with_parent(argv: Sequence[str], *, user: tuple[int, int] | None = None) -> list[str]:
    """`argv` started so the program gets SIGKILL when the thread that starts it ends (Linux delivers
    the parent-death signal per *thread*: start programs from one that lives as long as they should),
    as `user` (uid, gid) when given.

    A small exec helper sets the signal and the user, not a `preexec_fn` or subprocess' `user=`:
    Python code between fork and exec can crash in a process with gRPC threads, and without either
    subprocess may use vfork."""
    switch = [] if user is None else [f"--user={user[0]}:{user[1]}"]
    return [sys.executable, "-I", "-S", str(_HELPER), str(os.getpid()), *switch, *argv]


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


# --- what a launcher started, for the next start to find --------------------------------------------


def start_time(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat); None if gone."""
    try:
        line = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = line.rpartition(") ")[2].split()
    # Fields after the command name start at field 3 (state): field 22 is at index 19.
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def boot_id() -> str:
    try:
        return _BOOT_ID.read_text().strip()
    except OSError:
        return ""


@dataclass(frozen=True)
class RecordedProcess:
    """A program a launcher started: its name, PID, start time and the boot it ran in."""

    name: str
    pid: int
    start_time: int
    boot: str

    def is_running(self) -> bool:
        """Whether the very process recorded still runs (not merely another one with its PID)."""
        return self.boot == boot_id() and start_time(self.pid) == self.start_time and pid_alive(self.pid)


def record_processes(path: Path, processes: Iterable[tuple[str, int]]) -> None:
    """Write (name, pid) of every running program to `path` with its start time, in one step."""
    boot = boot_id()
    records = []
    for name, pid in processes:
        started = start_time(pid)
        if started is not None:
            records.append(asdict(RecordedProcess(name, pid, started, boot)))
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(records, indent=2) + "\n")
    partial.replace(path)


def read_recorded(path: Path) -> list[RecordedProcess]:
    """The records in `path`; none when it is missing or not a record file."""
    try:
        loaded = json.loads(path.read_text())
        return [
            RecordedProcess(str(r["name"]), int(r["pid"]), int(r["start_time"]), str(r["boot"]))
            for r in loaded
        ]
    except (OSError, ValueError, TypeError, KeyError):
        return []


def stop_recorded(path: Path, grace: float = 5.0) -> list[RecordedProcess]:
    """Stop every recorded program that still runs, with its process group, and remove `path`.

    Returns the ones stopped. A program counts only while its PID has the recorded start time; the
    rest of a group whose leader is gone counts too (a group id is not reused while a member lives).
    SIGTERM first, SIGKILL after `grace` seconds.
    """
    doomed: list[tuple[RecordedProcess, bool]] = []
    for record in read_recorded(path):
        stat = read_proc_stat(record.pid)
        if record.is_running():
            as_group = stat is not None and stat.pgrp == record.pid
        elif stat is None and group_members(record.pid):
            as_group = True
        else:
            continue  # gone, or its PID belongs to another process now
        _send(record.pid, as_group, signal.SIGTERM)
        doomed.append((record, as_group))
    for record, as_group in doomed:
        if not _poll(partial(_gone, record, as_group), grace, interval=0.05):
            _send(record.pid, as_group, signal.SIGKILL)
            _poll(partial(_gone, record, as_group), 2.0, interval=0.02)
    path.unlink(missing_ok=True)
    return [record for record, _ in doomed]


def _send(pid: int, as_group: bool, sig: signal.Signals) -> None:
    if as_group:
        signal_group(pid, sig)
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _gone(record: RecordedProcess, as_group: bool) -> bool:
    return not group_members(record.pid) if as_group else not record.is_running()
