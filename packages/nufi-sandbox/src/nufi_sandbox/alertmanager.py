"""A real Alertmanager (Debian's prometheus-alertmanager) on 127.0.0.1, for the sandbox and the tests.

Not the Debian package's service: this one has its own config, data and port, and no cluster
gossip (on by default, which would listen on 0.0.0.0:9094). Every alert goes to one receiver with no
integrations, so alerts are delivered and visible through the API without leaving the machine.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Self

import httpx
import yaml

from nufi_sandbox.processes import ManagedProcess, StopOnExit, free_port, require_binary

ALERTMANAGER_CANDIDATES = ["/usr/bin/prometheus-alertmanager"]
ALERTMANAGER_PACKAGE = "prometheus-alertmanager"
NULL_RECEIVER = "nufi-null"


def render_alertmanager_config(
    *, group_wait: str = "1s", group_interval: str = "1s", repeat_interval: str = "1h"
) -> str:
    """One route to a receiver with no integrations; short waits so a firing alert shows at once."""
    config = {
        "route": {
            "receiver": NULL_RECEIVER,
            "group_by": ["alertname"],
            "group_wait": group_wait,
            "group_interval": group_interval,
            "repeat_interval": repeat_interval,
        },
        "receivers": [{"name": NULL_RECEIVER}],
    }
    return yaml.safe_dump(config, sort_keys=False)


class AlertmanagerServer(StopOnExit):
    """Alertmanager with its own config, storage and port; `with AlertmanagerServer() as am:` or
    start()/stop()."""

    def __init__(
        self,
        *,
        work_dir: Path | None = None,
        binary: Path | None = None,
        startup_timeout: float = 30.0,
        port: int | None = None,
    ) -> None:
        """`port`: where to listen; by default a free one is picked at start. Give one to know the
        address before start (the sandbox configures Prometheus with it)."""
        self._owns_work_dir = work_dir is None
        self._work_dir_arg = work_dir
        self._binary = binary
        self._startup_timeout = startup_timeout
        self._work_dir: Path | None = None
        self._port = port
        self._process: ManagedProcess | None = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("Alertmanager has not been started")
        return self._port

    @property
    def address(self) -> str:
        """`host:port`, as Prometheus' `alerting.alertmanagers[].static_configs` names it."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def config_path(self) -> Path:
        return self._dir() / "alertmanager.yml"

    @property
    def log_path(self) -> Path:
        return self.process.log_path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def process(self) -> ManagedProcess:
        if self._process is None:
            raise RuntimeError("Alertmanager has not been started")
        return self._process

    def start(self) -> Self:
        if self._process is not None:
            raise RuntimeError(f"Alertmanager was already started (at {self.url}); use a new one")
        binary = self._binary or require_binary(
            "prometheus-alertmanager", ALERTMANAGER_CANDIDATES, ALERTMANAGER_PACKAGE
        )
        if self._work_dir_arg is None:
            self._work_dir = Path(tempfile.mkdtemp(prefix="nufi-alertmanager-"))
        else:
            self._work_dir = self._work_dir_arg
            self._work_dir.mkdir(parents=True, exist_ok=True)
        if self._port is None:
            self._port = free_port()
        self.config_path.write_text(render_alertmanager_config())
        self._process = ManagedProcess(
            "alertmanager",
            [
                binary,
                f"--config.file={self.config_path}",
                f"--storage.path={self._dir() / 'data'}",
                f"--web.listen-address={self.address}",
                # Empty: no HA gossip, which would otherwise listen on every interface.
                "--cluster.listen-address=",
            ],
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
        """Run Alertmanager again on the same port and config, without waiting for it."""
        self.process.restart()

    def alerts(self) -> list[dict[str, Any]]:
        """The alerts Alertmanager holds now (`/api/v2/alerts`: each has "labels", "status", ...)."""
        response = httpx.get(f"{self.url}/api/v2/alerts", timeout=10.0)
        response.raise_for_status()
        alerts: list[dict[str, Any]] = response.json()
        return alerts

    def stop(self) -> None:
        """Stop the server by PID and remove the data it wrote. Safe to call more than once."""
        if self._process is not None:
            self._process.stop()
        if self._owns_work_dir and self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
            self._work_dir = None

    def _dir(self) -> Path:
        if self._work_dir is None:
            raise RuntimeError("Alertmanager has no work directory (not started, or stopped)")
        return self._work_dir

    def _is_ready(self) -> bool:
        return httpx.get(f"{self.url}/-/ready", timeout=2.0).status_code == 200
