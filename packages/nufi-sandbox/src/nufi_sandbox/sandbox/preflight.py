"""Checks before anything starts: NuFi's port is free, the Prometheus and Alertmanager binaries are at
hand (as root, apt installs a missing one; otherwise the error says how to), and so is the code-server
VS Code labs run (`make setup` installs it)."""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from nufi_sandbox import code_server
from nufi_sandbox.alertmanager import AlertmanagerServer
from nufi_sandbox.debian_server import DebianServer
from nufi_sandbox.devcluster.runtime.unprivileged import let_through
from nufi_sandbox.processes import MissingBinaryError
from nufi_sandbox.prometheus import PrometheusServer
from nufi_sandbox.sandbox.errors import SandboxError
from nufi_sandbox.victoriametrics import VictoriaMetricsServer

AptRunner = Callable[[Sequence[str]], None]
_APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}


def check_port_free(port: int, host: str = "127.0.0.1") -> None:
    """Raise SandboxError naming the port and `--port` when something already listens there."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # The same option uvicorn sets: a port still in TIME_WAIT is usable, a listening one is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise SandboxError(
                    f"port {port} on {host} is already in use, so NuFi cannot listen there; stop what "
                    f"uses it, or start the sandbox on another port with --port (e.g. --port {port + 1})"
                ) from None
            raise SandboxError(
                f"cannot listen on {host}:{port}: {exc.strerror}; try another --port"
            ) from None


def ensure_prometheus(
    explicit: Path | None,
    *,
    is_root: bool,
    announce: Callable[[str], None],
    apt: AptRunner | None = None,
) -> Path:
    """The Prometheus binary to run: `explicit`, else the installed one, else apt installs it (as root).

    Without root, the error says how to install it instead.
    """
    if explicit is not None:
        if explicit.is_file() and os.access(explicit, os.X_OK):
            return explicit
        raise SandboxError(f"--prometheus {explicit}: not an executable file")
    return _ensure_installed(
        PrometheusServer,
        is_root=is_root,
        announce=announce,
        apt=apt,
        elsewhere=", or point to a binary with --prometheus PATH",
    )


def ensure_victoria_metrics(
    *, is_root: bool, announce: Callable[[str], None], apt: AptRunner | None = None
) -> Path:
    """The VictoriaMetrics binary to run: the installed one, else apt installs it (as root)."""
    return _ensure_installed(VictoriaMetricsServer, is_root=is_root, announce=announce, apt=apt)


def ensure_alertmanager(
    *, is_root: bool, announce: Callable[[str], None], apt: AptRunner | None = None
) -> Path:
    """The Alertmanager binary to run: the installed one, else apt installs it (as root)."""
    return _ensure_installed(AlertmanagerServer, is_root=is_root, announce=announce, apt=apt)


def ensure_code_server(*, is_root: bool) -> Path:
    """The code-server VS Code labs run; as root, also reachable by the users pods run as."""
    try:
        program = code_server.binary()
    except code_server.CodeServerMissingError as exc:
        raise SandboxError(str(exc)) from None
    if is_root:
        let_through(program.resolve(), "code-server")
    return program


def _ensure_installed(
    server: type[DebianServer],
    *,
    is_root: bool,
    announce: Callable[[str], None],
    apt: AptRunner | None,
    elsewhere: str = "",
) -> Path:
    what, package = server.name, server.package
    try:
        return server.find_binary()
    except MissingBinaryError:
        pass
    if not is_root:
        raise SandboxError(
            f"{what} is not installed. Install it with `sudo apt-get install {package}` (or run "
            f"`sudo make setup`){elsewhere}; then start the sandbox again."
        )
    announce(f"{what} is not installed: installing the Debian package with apt-get")
    (apt or run_apt)([package])
    try:
        return server.find_binary()
    except MissingBinaryError:
        raise SandboxError(
            f"apt-get finished but no {package} binary was found; install {what} and retry"
        ) from None


def run_apt(packages: Sequence[str]) -> None:
    """`apt-get update` and `apt-get install` the packages, or SandboxError with apt's last words."""
    apt_get = shutil.which("apt-get")
    if apt_get is None:
        raise SandboxError(
            f"{' '.join(packages)} is not installed and there is no apt-get here: install it with your "
            "package manager (Prometheus can also be given with --prometheus PATH)"
        )
    env = {**os.environ, **_APT_ENV}
    for argv in (
        [apt_get, "update", "-qq"],
        [apt_get, "install", "-y", "-qq", "--no-install-recommends", *packages],
    ):
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
            raise SandboxError(
                f"`{' '.join(argv)}` failed (exit {done.returncode}); install "
                f"{' '.join(packages)} yourself and retry:\n{tail}"
            )
