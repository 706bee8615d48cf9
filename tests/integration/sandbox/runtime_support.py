"""Starting `python -m nufi_sandbox.runtime` as the dev cluster runs it for a lab pod: its own process
with the pod's work directory as cwd, $PORT and $NB_PREFIX."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from nufi_sandbox.processes import ManagedProcess, free_port


def start_runtime(
    editor: str, workdir: Path, log_dir: Path, env: Mapping[str, str], *args: str
) -> tuple[ManagedProcess, int]:
    """The wrapper for ``editor`` on a free loopback port, started (maybe not listening yet)."""
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    process = ManagedProcess(
        f"runtime-{editor}",
        [sys.executable, "-m", "nufi_sandbox.runtime", editor, *args],
        log_dir=log_dir,
        env={"PORT": str(port), **env},
        cwd=workdir,
    ).start()
    return process, port
