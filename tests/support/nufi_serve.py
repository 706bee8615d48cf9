"""`nufi serve` as a user runs it: a real process on a free loopback port, stopped by PID."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support.env import env_without_nufi

NUFI = Path(sys.executable).parent / "nufi"
LISTENING = "NuFi listening on "


@contextmanager
def nufi_serve(work_dir: Path, **env: str) -> Iterator[tuple[str, int]]:
    """Start `nufi serve` in `work_dir` with the NUFI_* variables `env`; yield its host and port."""
    process = subprocess.Popen(
        [str(NUFI), "serve", "--host", "127.0.0.1", "--port", "0"],
        cwd=work_dir,
        env=env_without_nufi(NUFI_LOG_FORMAT="json", **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("nufi serve printed no listening URL within 60 s") from None
            if line.startswith(LISTENING):
                host, _, port = line[len(LISTENING) :].strip().removeprefix("http://").rpartition(":")
                break
        yield host, int(port)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        reader.join(timeout=5)


def stop(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """End `process` the way a service manager does: SIGTERM, so it shuts down cleanly, and SIGKILL if
    it has not ended within `timeout` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class KillableServer:
    """`nufi serve` on a free loopback port, started again as often as asked; `kill()` is `kill -9`."""

    def __init__(self, work_dir: Path, env: dict[str, str]) -> None:
        self._work_dir = work_dir
        self._env = env
        self.process: subprocess.Popen[str] | None = None
        self._stderr: Any = None

    def start(self) -> str:
        self.kill()
        self._stderr = (self._work_dir / "nufi.stderr").open("a")
        self.process = subprocess.Popen(
            [str(NUFI), "serve", "--host", "127.0.0.1", "--port", "0"],
            cwd=self._work_dir,
            env=env_without_nufi(**self._env),
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + 60
        for line in self.process.stdout:
            if line.startswith(LISTENING):
                # Nothing else is read from it: drop the rest so the process never blocks on a pipe.
                _drain(self.process.stdout)
                return line[len(LISTENING) :].strip()
            if time.monotonic() > deadline:
                break
        errors = (self._work_dir / "nufi.stderr").read_text()[-3000:]
        raise AssertionError(f"nufi serve printed no listening URL; it wrote:\n{errors}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def _drain(stream: Any) -> None:
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
