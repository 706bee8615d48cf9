"""The README's `console` block as commands and the output it shows under each, and a way to run one
as a person does in a terminal (a pseudo-terminal, so a live command draws as it would there)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Where the README's commands reach NuFi; a test's sandbox answers on a port of its own.
README_SERVER = "http://127.0.0.1:8080"
URL = re.compile(r"https?://\S+")


@dataclass
class ConsoleCommand:
    """One `$ ` command (with its `\\` continuation lines) and the lines the README shows it print."""

    text: str
    shown: list[str] = field(default_factory=list)

    @property
    def comment(self) -> str:
        return self.text.partition("  #")[2].strip()

    @property
    def live(self) -> bool:
        """Runs until stopped, as the README's comment says."""
        return self.comment.startswith("live")


def console_commands(markdown: str) -> list[ConsoleCommand]:
    (block,) = re.findall(r"^```console\n(.*?)^```", markdown, flags=re.M | re.S)
    commands: list[ConsoleCommand] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append(ConsoleCommand(line[2:]))
        elif commands and not commands[-1].shown and commands[-1].text.endswith("\\"):
            commands[-1].text += "\n" + line
        elif line.strip():
            commands[-1].shown.append(line)
    return commands


@dataclass
class Terminal:
    """Runs commands in bash on a pseudo-terminal of `columns` columns, from `cwd`, with `env`."""

    cwd: Path
    env: dict[str, str]
    columns: int = 120

    def run(
        self,
        command: str,
        *,
        until: Callable[[str], bool] | None = None,
        on_output: Callable[[str], bool] | None = None,
        timeout: float = 120.0,
    ) -> tuple[int, str]:
        """The exit status and everything printed. `on_output` sees the output so far until it answers
        True once; `until` ends a live command with Ctrl-C once the output satisfies it."""
        leader, follower = pty.openpty()
        env = {**self.env, "COLUMNS": str(self.columns), "LINES": "50", "TERM": "xterm-256color"}
        streams: dict[str, Any] = dict.fromkeys(("stdin", "stdout", "stderr"), follower)
        process = subprocess.Popen(
            ["bash", "-c", command], cwd=self.cwd, env=env, start_new_session=True, **streams
        )
        os.close(follower)
        output, deadline, interrupted = b"", time.monotonic() + timeout, False
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([leader], [], [], 0.2)
                chunk = _read(leader) if ready else b""
                if ready and not chunk and process.poll() is not None:
                    break
                output += chunk
                text = output.decode(errors="replace")
                if on_output is not None and on_output(text):
                    on_output = None
                if until is not None and not interrupted and until(text):
                    os.killpg(process.pid, signal.SIGINT)
                    interrupted = True
            else:
                raise AssertionError(f"{command!r} did not end within {timeout} s:\n{output.decode()}")
            return process.wait(timeout=10), output.decode(errors="replace").replace("\r\n", "\n")
        finally:
            os.close(leader)
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the terminal's other end closed: the command is done
        return b""
