"""`nufi serve` as a user runs it: a real process on a free loopback port, stopped by PID."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
