"""Running `python -m nufi_sandbox` as a user would, and checking what it leaves behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from nufi_sandbox.processes import describe_pid, free_port, kill_tree, pid_alive, read_proc_stat
from support.lpu_type import LPU_RESOURCE_KEY, lpu_type
from support.polling import poll

READY_LINE = "NuFi sandbox ready"
STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
LPU = LPU_RESOURCE_KEY
LPU_REGISTRATION = lpu_type(name="LPU")


@dataclass
class SandboxRun:
    """One sandbox process in its own session, its output in a file, its state in `work/.sandbox`."""

    work: Path
    port: int
    process: subprocess.Popen[bytes]
    output: Path
    children: list[int] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def state_dir(self) -> Path:
        return self.work / ".sandbox"

    @classmethod
    def start(cls, work: Path, *, port: int | None = None, args: tuple[str, ...] = ()) -> SandboxRun:
        port = port or free_port()
        output = work / f"sandbox-{len(list(work.glob('sandbox-*.out')))}.out"
        with open(output, "wb") as sink:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "nufi_sandbox",
                    "--state-dir",
                    str(work / ".sandbox"),
                    "--port",
                    str(port),
                    *args,
                ],
                cwd=work,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                # Its own process group, as a shell gives a foreground job: Ctrl-C reaches this group only.
                start_new_session=True,
            )
        return cls(work, port, process, output)

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> dict[str, Any]:
        """sandbox.json once the sandbox says it is ready; remembers the programs it started."""
        state_file = self.state_dir / "sandbox.json"

        def ready() -> bool:
            code = self.process.poll()
            assert code is None, f"the sandbox exited with {code} before it was ready:\n{self.text()}"
            return state_file.exists() and READY_LINE in self.text()

        poll(ready, within=timeout, every=0.2, what=f"the sandbox ready (its output: {self.output})")
        self.children = self.started_programs()
        self.state = json.loads(state_file.read_text())
        return self.state

    def started_programs(self) -> list[int]:
        return sorted(stat.pid for stat in all_stats() if stat.ppid == self.process.pid)

    def interrupt(self, sig: signal.Signals = signal.SIGINT) -> None:
        """SIGINT to the whole foreground group, as Ctrl-C in a terminal does; SIGTERM to the PID."""
        if sig == signal.SIGINT:
            os.killpg(self.process.pid, sig)
        else:
            os.kill(self.process.pid, sig)

    def wait_exit(self, timeout: float = STOP_TIMEOUT) -> int:
        return self.process.wait(timeout=timeout)

    def leftovers(self) -> list[str]:
        """Programs the sandbox started, or members of their process groups, that still run."""
        groups = set(self.children)
        alive = [pid for pid in self.children if pid_alive(pid)]
        alive += [s.pid for s in all_stats() if s.pgrp in groups and s.pid not in alive and pid_alive(s.pid)]
        return [describe_pid(pid) for pid in sorted(set(alive))]

    def cleanup(self) -> None:
        """After a failed test: stop the sandbox the hard way, so no later test inherits its programs."""
        if self.process.poll() is None:
            self.interrupt(signal.SIGINT)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                kill_tree(self.process.pid)
                self.process.wait()
        for pid in [*self.children, *(s.pid for s in all_stats() if s.pgrp in set(self.children))]:
            if pid_alive(pid):
                kill_tree(pid)


def token(state: dict[str, Any], username: str, password: str) -> str:
    form = {"grant_type": "password", "client_id": "nufi-cli", "username": username, "password": password}
    response = httpx.post(state["token_url"], data=form, timeout=10.0)
    assert response.status_code == 200, response.text
    access: str = response.json()["access_token"]
    return access


def bearer(access_token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {access_token}"}


def all_stats() -> list[Any]:
    stats = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = read_proc_stat(int(entry.name))
            if stat is not None:
                stats.append(stat)
    return stats


@contextmanager
def running_sandbox(*args: str) -> Iterator[SandboxRun]:
    """A ready sandbox started with `args`, stopped and removed afterwards whatever happened."""
    work = Path(tempfile.mkdtemp(prefix="sbx-", dir="/tmp"))
    run = SandboxRun.start(work, args=args)
    try:
        run.wait_ready()
        yield run
    finally:
        run.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def sign_in_at(url: str, username: str, password: str) -> None:
    """What a person does in the browser: the IdP's sign-in form, then its redirect to the loopback."""
    with httpx.Client(timeout=10.0) as browser:
        page = browser.get(url)
        assert page.status_code == 200 and "kc-form-login" in page.text, page.text
        action = re.search(r"action='([^']+)'", page.text)
        assert action is not None
        form = {**dict(parse_qsl(urlsplit(url).query)), "username": username, "password": password}
        signed_in = browser.post(action.group(1).replace("&amp;", "&"), data=form)
        assert signed_in.status_code == 302, signed_in.text
        assert signed_in.headers["location"].startswith("http://127.0.0.1:")
        assert browser.get(signed_in.headers["location"]).status_code == 200
