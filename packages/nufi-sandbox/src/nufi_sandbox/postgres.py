"""A throwaway PostgreSQL cluster on 127.0.0.1: initdb into a temp dir, pg_ctl on a free port.

PostgreSQL refuses to run as root, so when we are root every server-side program runs as the
`postgres` OS user and the temp dir is handed to that user.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from nufi_sandbox.pids import kill_group, pid_alive, read_recorded, record_processes, stop_recorded, wait_gone
from nufi_sandbox.processes import MissingBinaryError, StopOnExit, free_port, require_binary

_DEBIAN_ROOT = Path("/usr/lib/postgresql")
_SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    # A test database has nothing worth surviving a power cut; durability only costs time here.
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


class PostgresError(RuntimeError):
    """initdb, pg_ctl or createdb failed; the message carries their output."""


_ROOT_PREFIX = "nufi-postgres-"
# Who started a server and its postmaster, with start times, in the server's directory.
_OWNER_FILE = "started-by.json"
_OWNER = "owner"


def find_postgres_bin_dir() -> Path:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb, else the directory of initdb on PATH."""
    versioned: list[tuple[tuple[int, ...], Path]] = []
    for bin_dir in _DEBIAN_ROOT.glob("*/bin"):
        version = bin_dir.parent.name
        if re.fullmatch(r"\d+(\.\d+)*", version) and (bin_dir / "initdb").is_file():
            versioned.append((tuple(int(p) for p in version.split(".")), bin_dir))
    candidates = [d / "initdb" for _, d in sorted(versioned, reverse=True)]
    initdb = require_binary("initdb", candidates or [_DEBIAN_ROOT / "<version>/bin/initdb"], "postgresql")
    # Debian links only some programs into PATH; the real directory also holds pg_ctl and createdb.
    return initdb.resolve().parent


class PostgresServer(StopOnExit):
    """A PostgreSQL server with one trusted user and one database, removed without a trace on stop()."""

    def __init__(
        self,
        *,
        database: str = "nufi_test",
        user: str = "nufi",
        bin_dir: Path | None = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self.database = database
        self.user = user
        self._bin_dir = bin_dir
        self._startup_timeout = startup_timeout
        self._root: Path | None = None
        self._port: int | None = None
        self._pid: int | None = None
        self._stopped = False

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("PostgreSQL has not been started")
        return self._port

    @property
    def pid(self) -> int:
        """PID of the postmaster."""
        if self._pid is None:
            raise RuntimeError("PostgreSQL has not been started")
        return self._pid

    @property
    def dsn(self) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{self.database}"

    @property
    def sqlalchemy_url(self) -> str:
        return f"postgresql+asyncpg://{self.user}@127.0.0.1:{self.port}/{self.database}"

    @property
    def root_dir(self) -> Path:
        """The temp dir holding data/, sock/ and postgres.log while the server exists."""
        if self._root is None:
            raise RuntimeError("PostgreSQL has no directory (not started, or stopped)")
        return self._root

    @property
    def data_dir(self) -> Path:
        return self.root_dir / "data"

    @property
    def log_path(self) -> Path:
        return self.root_dir / "postgres.log"

    @property
    def bin_dir(self) -> Path:
        if self._bin_dir is None:
            self._bin_dir = find_postgres_bin_dir()
        return self._bin_dir

    def start(self) -> Self:
        if self._root is not None or self._stopped:
            raise RuntimeError("this PostgresServer was already started; use a new one")
        stop_orphaned_servers()
        as_server_user = _server_user_prefix()
        self._root = Path(tempfile.mkdtemp(prefix=_ROOT_PREFIX))
        try:
            socket_dir = self._root / "sock"
            socket_dir.mkdir()
            if as_server_user:
                _chown_to_postgres(self._root, socket_dir)
            self._run(
                "initdb",
                [
                    *as_server_user,
                    self.bin_dir / "initdb",
                    *("-D", self.data_dir, "-U", self.user, "-A", "trust"),
                    *("-E", "UTF8", "--locale=C", "--no-sync"),
                ],
            )
            self._port = free_port()
            options = [f"-p {self._port}", f"-k {shlex.quote(str(socket_dir))}"]
            options += [f"-c {key}={value}" for key, value in _SERVER_SETTINGS.items()]
            self._run(
                "pg_ctl start",
                [
                    *as_server_user,
                    self.bin_dir / "pg_ctl",
                    *("-D", self.data_dir, "-l", self.log_path, "-o", " ".join(options)),
                    *("-w", "-t", str(int(self._startup_timeout)), "start"),
                ],
            )
            self._pid = self._read_postmaster_pid()
            record_processes(self._root / _OWNER_FILE, [(_OWNER, os.getpid()), ("postmaster", self._pid)])
            self._run(
                "createdb",
                [
                    self.bin_dir / "createdb",
                    *("-h", "127.0.0.1", "-p", str(self._port), "-U", self.user, self.database),
                ],
            )
        except BaseException:
            self.stop()
            raise
        return self

    def psql(self, sql: str) -> str:
        """Run `sql` through psql over TCP and return its unaligned output (rows on lines, `|` between)."""
        return self._run(
            "psql",
            [self.bin_dir / "psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.dsn, "-c", sql],
        )

    def stop(self) -> None:
        """Fast shutdown via pg_ctl, SIGKILL to the postmaster's group if that fails, then remove the dir."""
        if self._stopped:
            return
        self._stopped = True
        if self._pid is None and self._root is not None:
            # pg_ctl may have given up waiting while the postmaster came up anyway.
            with contextlib.suppress(OSError, ValueError, IndexError):
                self._pid = self._read_postmaster_pid()
        try:
            if self._pid is not None and pid_alive(self._pid):
                with contextlib.suppress(PostgresError, subprocess.TimeoutExpired):
                    self._run(
                        "pg_ctl stop",
                        [
                            *_server_user_prefix(),
                            self.bin_dir / "pg_ctl",
                            *("-D", self.data_dir, "-m", "fast", "-w", "-t", "10", "stop"),
                        ],
                    )
                if not wait_gone(self._pid, timeout=5.0):
                    # pg_ctl starts the postmaster in a session of its own, so its group is its PID.
                    kill_group(self._pid)
        finally:
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
                self._root = None

    def _read_postmaster_pid(self) -> int:
        first_line = (self.data_dir / "postmaster.pid").read_text().splitlines()[0]
        return int(first_line.strip())

    def _run(self, what: str, argv: Sequence[str | Path]) -> str:
        completed = subprocess.run(
            [str(a) for a in argv],
            cwd=self._root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=self._startup_timeout + 10,
            env={**os.environ, "PGCONNECT_TIMEOUT": "5", "LC_ALL": "C"},
        )
        if completed.returncode != 0:
            log_tail = ""
            if self._root is not None and self.log_path.exists():
                log_tail = "\n".join(self.log_path.read_text(errors="replace").splitlines()[-20:])
            raise PostgresError(
                f"{what} failed with exit code {completed.returncode}:\n"
                f"{completed.stdout}{completed.stderr}"
                + (f"\nLast lines of the server log:\n{log_tail}" if log_tail else "")
            )
        return completed.stdout


def _server_user_prefix() -> list[str]:
    """The command prefix that runs server programs as `postgres` when we are root, else nothing."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise MissingBinaryError(
            "PostgreSQL cannot run as root and there is no `postgres` user. "
            "Run `make setup` as root, or `apt-get install postgresql`."
        ) from None
    runuser = require_binary("runuser", ["/usr/sbin/runuser", "/sbin/runuser"], "util-linux")
    return [str(runuser), "-u", "postgres", "--"]


def _chown_to_postgres(*paths: Path) -> None:
    account = pwd.getpwnam("postgres")
    for path in paths:
        os.chown(path, account.pw_uid, account.pw_gid)


def stop_orphaned_servers() -> list[Path]:
    """Stop the servers whose starter died without stopping them (a test run killed half-way), and
    remove their directories; returns those directories. pg_ctl detaches the postmaster, so it does
    not die with its starter the way the sandbox's programs do: each server records who started it,
    and the next start looks."""
    stopped = []
    for root in Path(tempfile.gettempdir()).glob(f"{_ROOT_PREFIX}*"):
        records = read_recorded(root / _OWNER_FILE)
        owner = next((record for record in records if record.name == _OWNER), None)
        if owner is None or owner.is_running():
            continue
        stop_recorded(root / _OWNER_FILE)
        shutil.rmtree(root, ignore_errors=True)
        stopped.append(root)
    return stopped
