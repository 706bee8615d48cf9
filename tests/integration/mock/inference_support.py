"""Starting `nufi-mock inference` as a pod's container would run it: its own process and environment."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

import httpx

from nufi_sandbox.processes import ManagedProcess, free_port


def start_inference(
    name: str, log_dir: Path, env: Mapping[str, str], *args: str
) -> tuple[ManagedProcess, str]:
    """An inference server on a free loopback port (given as $PORT, as the kubelet does), answering
    /health; returns it and its base URL."""
    port = free_port()
    process = ManagedProcess(
        name,
        [
            sys.executable,
            "-m",
            "nufi_mock",
            "inference",
            "--host",
            "127.0.0.1",
            "--log-format",
            "json",
            *args,
        ],
        log_dir=log_dir,
        env={"PORT": str(port), **env},
    ).start()
    url = f"http://127.0.0.1:{port}"
    try:
        process.wait_ready(lambda: _listening(url), 15.0, "answering /health")
    except BaseException:
        process.stop()
        raise
    return process, url


def _listening(url: str) -> bool:
    try:
        httpx.get(f"{url}/health", timeout=1.0)
    except httpx.HTTPError:
        return False
    return True
