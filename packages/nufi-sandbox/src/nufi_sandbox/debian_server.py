"""What the Debian-packaged servers the sandbox runs (Prometheus, Alertmanager) share: a binary found on
the machine, a work directory of their own (removed at stop when made here), one config file, a port on
127.0.0.1, a process stopped by PID, and readiness on `/-/ready`."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import ClassVar, Self

import httpx

from nufi_sandbox.processes import ManagedProcess, StopOnExit, free_port, require_binary


class DebianServer(StopOnExit):
    """`with Server() as s:` or start()/stop(); a subclass says what it is and how it is started."""

    name: ClassVar[str]
    # The process's name: its log file and work directory are named after it.
    process_name: ClassVar[str]
    binary_name: ClassVar[str]
    candidates: ClassVar[list[str]]
    package: ClassVar[str]
    config_file: ClassVar[str]

    def __init__(
        self,
        *,
        work_dir: Path | None = None,
        binary: Path | None = None,
        startup_timeout: float = 30.0,
        port: int | None = None,
    ) -> None:
        """`port`: where to listen; by default a free one is picked at start. Give one to know the
        address before start."""
        self._owns_work_dir = work_dir is None
        self._work_dir_arg = work_dir
        self._binary = binary
        self._startup_timeout = startup_timeout
        self._work_dir: Path | None = None
        self._port = port
        self._process: ManagedProcess | None = None

    # -- what a subclass gives ------------------------------------------------------------------------

    def _config_text(self) -> str:
        raise NotImplementedError

    def _arguments(self) -> list[str]:
        """The command-line flags after the binary (its config, storage and listen address)."""
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------------------

    @classmethod
    def find_binary(cls) -> Path:
        """The installed binary (a candidate path, else on PATH); MissingBinaryError says how to get it."""
        return require_binary(cls.binary_name, cls.candidates, cls.package)

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError(f"{self.name} has not been started")
        return self._port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def config_path(self) -> Path:
        return self._dir() / self.config_file

    @property
    def process(self) -> ManagedProcess:
        if self._process is None:
            raise RuntimeError(f"{self.name} has not been started")
        return self._process

    @property
    def log_path(self) -> Path:
        return self.process.log_path

    @property
    def pid(self) -> int:
        return self.process.pid

    def start(self) -> Self:
        if self._process is not None:
            raise RuntimeError(f"{self.name} was already started (at {self.url}); use a new one")
        binary = self._binary or self.find_binary()
        if self._work_dir_arg is None:
            self._work_dir = Path(tempfile.mkdtemp(prefix=f"nufi-{self.process_name}-"))
        else:
            self._work_dir = self._work_dir_arg
            self._work_dir.mkdir(parents=True, exist_ok=True)
        if self._port is None:
            self._port = free_port()
        self.config_path.write_text(self._config_text())
        self._process = ManagedProcess(
            self.process_name,
            [binary, *self._arguments()],
            log_dir=self._dir(),
            cwd=self._dir(),
        ).start()
        try:
            self._process.wait_ready(self._is_ready, self._startup_timeout, f"ready at {self.url}/-/ready")
        except BaseException:
            self.stop()
            raise
        return self

    def restart(self) -> None:
        """Run it again on the same port, config and data, without waiting for it: the caller asks
        /-/ready until it answers."""
        self.process.restart()

    def stop(self) -> None:
        """Stop the server by PID and remove the data it wrote. Safe to call more than once."""
        if self._process is not None:
            self._process.stop()
        if self._owns_work_dir and self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
            self._work_dir = None

    def _dir(self) -> Path:
        if self._work_dir is None:
            raise RuntimeError(f"{self.name} has no work directory (not started, or stopped)")
        return self._work_dir

    def _is_ready(self) -> bool:
        return httpx.get(f"{self.url}/-/ready", timeout=2.0).status_code == 200
