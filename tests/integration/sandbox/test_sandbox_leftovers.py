"""Programs die with the process that started them, and a record of them lets a later start stop what
an earlier one left running, but never another process that got the same PID."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nufi_sandbox.pids import read_recorded, record_processes, start_time, stop_recorded
from nufi_sandbox.processes import pid_alive
from nufi_sandbox.sandbox.layout import PROGRAMS_FILE, prepare, stop_leftovers
from nufi_sandbox.sandbox.topology import NODES
from support.polling import poll

NAMES = [node.name for node in NODES]
SLEEPER = [sys.executable, "-c", "import time; time.sleep(300)"]


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes that stand for what an earlier sandbox started, each in its own session like them."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def sleeper(started: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(SLEEPER, stdin=subprocess.DEVNULL, start_new_session=True)
    started.append(process)
    return process


def test_a_launcher_killed_hard_takes_its_programs_along(tmp_path: Path) -> None:
    """A launcher starts a ManagedProcess, then gets SIGKILL: the kernel kills the program too."""
    pid_file = tmp_path / "child.pid"
    launcher_code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from nufi_sandbox.processes import ManagedProcess\n"
        f"child = ManagedProcess('sleeper', {SLEEPER!r}, log_dir=Path({str(tmp_path)!r})).start()\n"
        f"Path({str(pid_file)!r}).write_text(str(child.pid))\n"
        "time.sleep(300)\n"
    )
    launcher = subprocess.Popen([sys.executable, "-c", launcher_code], stdin=subprocess.DEVNULL)
    try:
        poll(lambda: pid_file.exists() and pid_file.read_text() != "", what="the pid file written")
        child = int(pid_file.read_text())
        assert pid_alive(child)
    finally:
        launcher.kill()
        launcher.wait()
    poll(lambda: not pid_alive(child), what="the child gone")


def test_stop_recorded_stops_what_still_runs_and_spares_a_reused_pid(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    leftover, stranger = sleeper(sleepers), sleeper(sleepers)
    record = tmp_path / PROGRAMS_FILE
    record_processes(record, [("exporter-a", leftover.pid), ("nufi", stranger.pid)])
    # The stranger's PID is recorded with another start time: a process that merely has that PID now.
    entries = json.loads(record.read_text())
    entries[1]["start_time"] -= 1
    record.write_text(json.dumps(entries))

    stopped = stop_recorded(record)

    assert [(entry.name, entry.pid) for entry in stopped] == [("exporter-a", leftover.pid)]
    assert leftover.wait(timeout=10) is not None
    assert stranger.poll() is None
    assert not record.exists()


def test_the_record_holds_pid_and_start_time(tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]) -> None:
    process = sleeper(sleepers)
    record = tmp_path / PROGRAMS_FILE
    record_processes(record, [("idp", process.pid), ("gone", 2**22 + 1)])
    (entry,) = read_recorded(record)
    assert (entry.name, entry.pid, entry.start_time) == ("idp", process.pid, start_time(process.pid))
    assert entry.is_running()
    record.write_text("not json")
    assert read_recorded(record) == []


def test_leftovers_of_a_running_sandbox_are_left_alone(
    short_tmp: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    root = short_tmp / "state"
    process = sleeper(sleepers)
    layout = prepare(root, fresh=False, node_names=NAMES)
    try:
        record_processes(layout.programs_file, [("nufi", process.pid)])
        # The directory is locked by a sandbox that runs: its programs are not leftovers.
        assert stop_leftovers(root) == []
        assert process.poll() is None
    finally:
        # A sandbox that stops cleanly removes its record.
        layout.release()
    assert not layout.programs_file.exists()

    record_processes(layout.programs_file, [("nufi", process.pid)])
    assert [entry.pid for entry in stop_leftovers(root)] == [process.pid]
    assert process.wait(timeout=10) is not None
