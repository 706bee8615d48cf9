"""The `nufi` command as a user runs it: a real process on a free port, stopped by PID."""

from __future__ import annotations

import ast
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import nufi
from support.env import env_without_nufi

NUFI = Path(sys.executable).parent / "nufi"
LISTENING = "NuFi listening on "


def read_lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line)


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        children = (task / "children").read_text().split()
        found.extend(int(c) for c in children)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def nufi_serve(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, queue.Queue[str]]]:
    process = subprocess.Popen(
        [str(NUFI), "serve", "--host", "127.0.0.1", "--port", "0"],
        cwd=tmp_path,
        env=env_without_nufi(NUFI_LOG_FORMAT="json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout: queue.Queue[str] = queue.Queue()
    stderr: queue.Queue[str] = queue.Queue()
    threads = [
        threading.Thread(target=read_lines, args=(process.stdout, stdout), daemon=True),
        threading.Thread(target=read_lines, args=(process.stderr, stderr), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None:
            try:
                line = stdout.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("nufi serve printed no listening URL within 30 s")
            if line.startswith(LISTENING):
                url = line[len(LISTENING) :].strip()
        yield process, url, stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        for thread in threads:
            thread.join(timeout=5)


def test_serve_answers_and_stops_cleanly_on_sigterm(
    nufi_serve: tuple[subprocess.Popen[str], str, queue.Queue[str]],
) -> None:
    process, url, stderr = nufi_serve
    assert url.startswith("http://127.0.0.1:")
    health = httpx.get(f"{url}/healthz", timeout=5)
    assert health.status_code == 200
    assert health.json() == {"status": "ok"}
    assert httpx.get(f"{url}/readyz", timeout=5).status_code == 200
    assert httpx.get(f"{url}/api/v1/version", timeout=5).json()["version"] == nufi.__version__

    children = children_of(process.pid)
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=20)
    # uvicorn shuts down gracefully, then re-raises the signal so the exit status tells the truth.
    assert code in (0, -signal.SIGTERM)
    assert not alive(process.pid)
    for child in children:
        assert not alive(child), f"child process {child} of nufi serve is still running"

    logs = []
    while not stderr.empty():
        line = stderr.get()
        if line.strip():
            logs.append(json.loads(line))
    events = [entry["event"] for entry in logs]
    assert "NuFi starting" in events
    assert "NuFi stopping" in events
    assert not any(entry["level"] in ("error", "critical") for entry in logs)


def test_version_command_prints_the_version() -> None:
    result = subprocess.run(
        [str(NUFI), "version"], env=env_without_nufi(), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stdout.startswith(f"nufi {nufi.__version__} ")


def test_serve_with_bad_settings_exits_with_a_message(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(NUFI), "serve"],
        cwd=tmp_path,
        env=env_without_nufi(NUFI_PORT="eighty"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "NUFI_PORT" in result.stderr
    assert "Traceback" not in result.stderr


def test_product_package_never_imports_sandbox_or_mock() -> None:
    root = Path(nufi.__file__).parent
    offenders = []
    for source in sorted(root.rglob("*.py")):
        tree = ast.parse(source.read_text(), filename=str(source))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [
                f"{source.relative_to(root)}: {n}"
                for n in names
                if n.split(".")[0] in ("nufi_sandbox", "nufi_mock")
            ]
    assert offenders == []
