"""Running uv from tests the way the Makefile does."""

from __future__ import annotations

import shutil
import subprocess


def uv_command() -> list[str]:
    """uv as `make setup` runs it (a module of the system Python), else a uv on PATH."""
    python3 = shutil.which("python3")
    if python3 is not None:
        probe = subprocess.run([python3, "-m", "uv", "--version"], capture_output=True, timeout=60)
        if probe.returncode == 0:
            return [python3, "-m", "uv"]
    on_path = shutil.which("uv")
    if on_path is None:
        raise AssertionError("uv is not installed: run `make setup`, which installs it with pip")
    return [on_path]
