"""The VS Code lab wrapper starts the real code-server `make setup` installed: on loopback at the pod's
port, at `/` (the proxy in front takes the lab's path off), with NuFi's switches and environment for
it, its home and files on the lab's volume (the work dir), the pod's devices in its environment;
stopped by PID, nothing of it stays."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from uuid import uuid4

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from nufi.workloads.labs.model import PROFILES
from nufi_sandbox import code_server
from nufi_sandbox.processes import ManagedProcess

from .runtime_support import start_runtime

# The lab's own origin, as NuFi's proxy names it to code-server in X-Forwarded-Host.
LAB_HOST = "code--team-a.localhost:18080"
# The workbench page names its scripts and styles by relative URLs only (code-server has no base path).
_ASSET = re.compile(r'(?:src|href)="([^"?#]+\.(?:js|css))"')


def _proc_words(pid: int, name: str) -> list[str]:
    return Path(f"/proc/{pid}/{name}").read_bytes().decode().split("\0")


def _running_in(workdir: Path) -> list[int]:
    """Processes whose working directory is ``workdir`` (what a lab's server and terminals have)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == workdir:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _open_workbench(base: str, workdir: Path) -> str:
    """The workbench page, through the redirect code-server answers `/` with; returns its HTML."""
    root = httpx.get(f"{base}/", timeout=10.0)
    assert root.status_code == 302, root.text
    location = root.headers["location"]
    # A relative redirect: it stays right under whatever path the proxy in front serves the lab at.
    assert not location.startswith(("/", "http")), location
    assert parse_qs(urlsplit(location).query)["folder"] == [str(workdir)]
    page = httpx.get(f"{base}/{location.removeprefix('./')}", timeout=10.0)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    return page.text


def test_the_real_code_server_serves_the_workbench_from_the_lab_volume(
    tmp_path: Path, logs_dir: Path
) -> None:
    code_server.binary()  # not installed: the error names `make setup`, instead of a lab that never answers
    workdir = tmp_path / "work"
    profile = PROFILES["vscode"]
    env = {"NB_PREFIX": "/labs/team-a/code", "LPU_VISIBLE_DEVICES": "lpu3", **dict(profile.env)}
    # NuFi's manifest for the image: where it listens and the folder it opens are the dev cluster's.
    process, port = start_runtime("vscode", workdir, logs_dir, env, *profile.args())
    base = f"http://127.0.0.1:{port}"
    try:
        process.wait_ready(lambda: httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200, 60.0)
        assert httpx.get(f"{base}/healthz", timeout=5.0).json()["status"] in ("alive", "expired")
        page = _open_workbench(base, workdir)
        assets = _ASSET.findall(page)
        assert assets, page
        # Relative, so they resolve under the lab's own path behind the proxy.
        assert not [url for url in assets if url.startswith(("/", "http:", "https:"))], assets
        workbench = next(url for url in assets if url.endswith("workbench.js"))
        asset = httpx.get(f"{base}/{workbench.removeprefix('./')}", timeout=10.0)
        assert asset.status_code == 200 and "javascript" in asset.headers["content-type"]
        # The workbench's socket: taken from the lab's own origin, refused from any other.
        assert asyncio.run(_socket_status(port, page, f"http://{LAB_HOST}")) == 101
        assert asyncio.run(_socket_status(port, page, "http://elsewhere.example")) == 403
        _check_the_process(process, port, workdir)
    finally:
        process.stop()
    assert _running_in(workdir) == []


async def _socket_status(port: int, page: str, origin: str) -> int:
    """101 when code-server opens the workbench's WebSocket for a page on ``origin`` behind the proxy,
    else the status it refuses it with."""
    found = re.search(r"stable-([0-9a-f]+)/static/", page)
    assert found is not None, page
    url = (
        f"ws://127.0.0.1:{port}/stable-{found.group(1)}"
        f"?reconnectionToken={uuid4()}&reconnection=false&skipWebSocketFrames=false"
    )
    headers = {"X-Forwarded-Host": LAB_HOST}
    try:
        async with connect(url, origin=Origin(origin), additional_headers=headers, close_timeout=1):
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


def _check_the_process(process: ManagedProcess, port: int, workdir: Path) -> None:
    """The wrapper became code-server (same PID), with production's arguments and the pod's env."""
    argv = _proc_words(process.pid, "cmdline")
    assert argv[argv.index("--bind-addr") + 1] == f"127.0.0.1:{port}"
    assert "0.0.0.0:8080" not in argv and "/home/coder" not in argv
    for flag in ("--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"):
        assert flag in argv
    assert argv[argv.index("--auth") + 1] == "none"
    environ = dict(word.split("=", 1) for word in _proc_words(process.pid, "environ") if "=" in word)
    assert environ["LPU_VISIBLE_DEVICES"] == "lpu3" and environ["HOME"] == str(workdir)
    assert environ["EXTENSIONS_GALLERY"] == '{"serviceUrl": ""}'
    # Its settings and its own config file are on the lab's volume, not in the sandbox user's home.
    assert (workdir / ".config" / "code-server" / "config.yaml").is_file()
    assert (workdir / ".local" / "share" / "code-server").is_dir()
