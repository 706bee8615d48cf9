"""The sandbox's state directory: what lives where, --fresh, and one sandbox per directory at a time.

The dev cluster's kubelet sockets live in a short directory of their own: a unix socket path must fit
in 108 bytes (sun_path), and a clone deep in a home directory could exceed that. When the state
directory is too deep, the sockets go to a fresh directory under /tmp, removed again at exit.

While a sandbox runs, `programs.json` records each program it started (PID and start time); a sandbox
killed too hard to stop them leaves it behind, and the next start stops those still running.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from nufi_sandbox.pids import RecordedProcess, stop_recorded
from nufi_sandbox.sandbox.errors import SandboxError

MARKER = ".nufi-sandbox"
LOCK = ".lock"
STATE_FILE = "sandbox.json"
PROGRAMS_FILE = "programs.json"
RUNTIME_MAP_FILE = "runtime-map.json"
# sun_path holds 108 bytes with the terminating NUL; stay clear of the edge.
MAX_SOCKET_PATH = 100
_SANDBOX_ENTRIES = frozenset(
    {
        MARKER,
        LOCK,
        STATE_FILE,
        PROGRAMS_FILE,
        RUNTIME_MAP_FILE,
        "cluster",
        "logs",
        "idp",
        "prometheus",
        "alertmanager",
        "alert-rules",
        "nodes.yaml",
        "nufi.db",
    }
)
_DEEPEST_SOCKET = ("nodes", "{node}", "pod-resources", "kubelet.sock")


def longest_socket_path(cluster_dir: Path, node_names: Sequence[str]) -> int:
    """Bytes of the longest kubelet socket path the dev cluster will create under `cluster_dir`."""
    longest = max(node_names, key=len)
    parts = [part.format(node=longest) for part in _DEEPEST_SOCKET]
    return len(os.fsencode(cluster_dir.joinpath(*parts)))


@dataclass
class StateLayout:
    """Paths inside one state directory; `cluster_dir` may lie outside it (see module doc)."""

    root: Path
    cluster_dir: Path
    cluster_dir_is_temporary: bool
    _lock_file: IO[str] | None = None

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def idp_dir(self) -> Path:
        return self.root / "idp"

    @property
    def prometheus_dir(self) -> Path:
        return self.root / "prometheus"

    @property
    def alertmanager_dir(self) -> Path:
        return self.root / "alertmanager"

    @property
    def alert_rules_dir(self) -> Path:
        """Where NuFi writes its Prometheus rule files and Prometheus reads them: kept across restarts
        with the database the rules are made from."""
        return self.root / "alert-rules"

    @property
    def database(self) -> Path:
        return self.root / "nufi.db"

    @property
    def dashboard_secret(self) -> Path:
        """The key sealing the dashboard's sessions: kept with the database, so a restart of the
        sandbox does not sign anyone out."""
        return self.root / "dashboard-session-secret"

    def dashboard_session_secret(self) -> str:
        if not self.dashboard_secret.exists():
            self.dashboard_secret.write_text(secrets.token_urlsafe(32))
            self.dashboard_secret.chmod(0o600)
        return self.dashboard_secret.read_text().strip()

    @property
    def nodes_file(self) -> Path:
        return self.root / "nodes.yaml"

    @property
    def runtime_map_file(self) -> Path:
        """Which images the dev cluster runs as local processes (rewritten at every start)."""
        return self.root / RUNTIME_MAP_FILE

    @property
    def state_file(self) -> Path:
        return self.root / STATE_FILE

    @property
    def programs_file(self) -> Path:
        return self.root / PROGRAMS_FILE

    def release(self) -> None:
        """Remove what only lives while the sandbox runs, and let another sandbox use the directory."""
        self.state_file.unlink(missing_ok=True)
        self.programs_file.unlink(missing_ok=True)
        if self.cluster_dir_is_temporary:
            shutil.rmtree(self.cluster_dir, ignore_errors=True)
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None


def prepare(root: Path, *, fresh: bool, node_names: Sequence[str]) -> StateLayout:
    """Claim `root` for this sandbox: create it, lock it, and clear what must not survive a restart.

    Kept across restarts unless `fresh`: the NuFi database (registered device types, audit log), the
    alert rules NuFi wrote from it, Alertmanager's silences and the identity provider's signing keys.
    Always cleared: Prometheus' data (the exporters come back on
    new ports, and their old series would linger as duplicates) and the dev cluster's sockets.
    """
    root = root.expanduser().resolve()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SandboxError(
            f"cannot create the state directory {root}: {exc.strerror}; choose another with --state-dir"
        ) from None
    if not _is_sandbox_dir(root):
        raise SandboxError(
            f"{root} is not empty and is not a sandbox state directory; choose another with --state-dir"
        )
    lock_file = _lock(root)
    try:
        # The signing keys and the database are the sandbox's alone: no other user may enter.
        root.chmod(0o700)
        if fresh:
            for entry in root.iterdir():
                if entry.name not in (LOCK, MARKER):
                    _remove(entry)
        (root / MARKER).write_text("state directory of nufi-sandbox; --fresh empties it\n")
        _remove(root / "prometheus" / "data")
        _remove(root / STATE_FILE)
        cluster_dir, temporary = _cluster_dir(root, node_names)
    except BaseException:
        lock_file.close()
        raise
    return StateLayout(root, cluster_dir, temporary, lock_file)


def stop_leftovers(root: Path) -> list[RecordedProcess]:
    """Stop the programs an earlier sandbox in `root` started and left running; returns them.

    Nothing is touched while another sandbox holds the directory: its programs are not leftovers.
    """
    root = root.expanduser().resolve()
    programs = root / PROGRAMS_FILE
    if not programs.exists():
        return []
    try:
        handle = open(root / LOCK, "a+")  # noqa: SIM115 - closed below
    except OSError:
        return []
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return []
    try:
        return stop_recorded(programs)
    finally:
        handle.close()


def _is_sandbox_dir(root: Path) -> bool:
    """Marked as ours, or holding nothing a sandbox would not have written (also earlier versions)."""
    if (root / MARKER).exists():
        return True
    return all(entry.name in _SANDBOX_ENTRIES or entry.name.startswith("nufi.db") for entry in root.iterdir())


def _cluster_dir(root: Path, node_names: Sequence[str]) -> tuple[Path, bool]:
    inside = root / "cluster"
    _remove(inside)
    if longest_socket_path(inside, node_names) <= MAX_SOCKET_PATH:
        inside.mkdir()
        return inside, False
    outside = Path(tempfile.mkdtemp(prefix="nufi-sbx-", dir="/tmp"))
    if longest_socket_path(outside, node_names) > MAX_SOCKET_PATH:
        shutil.rmtree(outside, ignore_errors=True)
        raise SandboxError(f"no short enough directory for the kubelet sockets (tried {inside} and /tmp)")
    return outside, True


def _lock(root: Path) -> IO[str]:
    handle = open(root / LOCK, "a+")  # noqa: SIM115 - held open for the sandbox's lifetime
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise SandboxError(
            f"another sandbox (pid {holder}) is running with the state directory {root}; stop it, or "
            "choose another directory with --state-dir"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
