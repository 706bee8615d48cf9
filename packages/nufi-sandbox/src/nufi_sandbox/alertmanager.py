"""A real Alertmanager (Debian's prometheus-alertmanager) on 127.0.0.1, for the sandbox and the tests.

Not the Debian package's service: this one has its own config, data and port, and no cluster
gossip (on by default, which would listen on 0.0.0.0:9094). Every alert goes to one receiver with no
integrations, so alerts are delivered and visible through the API without leaving the machine.
"""

from __future__ import annotations

from typing import Any

import httpx
import yaml

from nufi_sandbox.debian_server import DebianServer

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


class AlertmanagerServer(DebianServer):
    """Alertmanager with its own config, storage and port; `with AlertmanagerServer() as am:` or
    start()/stop(). Give `port` to know the address before start (the sandbox configures Prometheus
    with it)."""

    name = "Alertmanager"
    process_name = "alertmanager"
    binary_name = "prometheus-alertmanager"
    candidates = ALERTMANAGER_CANDIDATES
    package = ALERTMANAGER_PACKAGE
    config_file = "alertmanager.yml"

    def _config_text(self) -> str:
        return render_alertmanager_config()

    def _arguments(self) -> list[str]:
        return [
            f"--config.file={self.config_path}",
            f"--storage.path={self._dir() / 'data'}",
            f"--web.listen-address={self.address}",
            # Empty: no HA gossip, which would otherwise listen on every interface.
            "--cluster.listen-address=",
        ]

    def alerts(self) -> list[dict[str, Any]]:
        """The alerts Alertmanager holds now (`/api/v2/alerts`: each has "labels", "status", ...)."""
        response = httpx.get(f"{self.url}/api/v2/alerts", timeout=10.0)
        response.raise_for_status()
        alerts: list[dict[str, Any]] = response.json()
        return alerts
