"""`STATE_DIR/sandbox.json`: where everything runs, for scripts and tests to read."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nufi_sandbox.sandbox.images import IMAGES

USERS = {"admin": "admin", "user": "user"}


def exporter_base_url(port: int) -> str:
    """Where a mock exporter answers: `/metrics` below it for Prometheus, `/control/override`,
    `/control/load` and `/control/absent` to steer it."""
    return f"http://127.0.0.1:{port}"


@dataclass(frozen=True)
class SandboxState:
    nufi_url: str
    prometheus_url: str
    kube_api_url: str
    kubeconfig: Path
    oidc_issuer: str
    token_url: str
    exporters: Mapping[str, str]
    """Each node's exporter by its metrics URL (what Prometheus scrapes)."""
    alertmanager_url: str
    """The Alertmanager Prometheus sends alerts to (its API: /api/v2/alerts)."""
    alert_rules_dir: Path
    """Where NuFi writes the rule files (`nufi-<type>.rules.yml`) Prometheus loads."""
    exporter_base_urls: Mapping[str, str] = field(default_factory=dict)
    """Each node's exporter by its base URL, below which its control endpoints are."""
    kube_token: str = ""
    """The bearer token the dev cluster's API takes (the kubeconfig's)."""
    exporter_control_token: str = ""
    """The bearer token the exporters' `/control/override` and `/control/absent` take."""
    users: Mapping[str, str] = field(default_factory=lambda: dict(USERS))
    images: Mapping[str, str] = field(default_factory=lambda: dict(IMAGES))
    """What each image the sandbox runs as a local process is for: inference, jupyter, vscode."""

    def as_json(self) -> dict[str, Any]:
        return {
            "nufi_url": self.nufi_url,
            "prometheus_url": self.prometheus_url,
            "alertmanager_url": self.alertmanager_url,
            "alert_rules_dir": str(self.alert_rules_dir),
            "kube_api_url": self.kube_api_url,
            "kubeconfig": str(self.kubeconfig),
            "oidc_issuer": self.oidc_issuer,
            "token_url": self.token_url,
            "exporters": dict(self.exporters),
            "exporter_base_urls": dict(self.exporter_base_urls),
            "kube_token": self.kube_token,
            "exporter_control_token": self.exporter_control_token,
            "users": dict(self.users),
            "images": dict(self.images),
        }

    def write(self, path: Path) -> None:
        """Replace `path` in one step, so a reader never sees half a file; its owner alone reads it
        (it holds the tokens)."""
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(self.as_json(), indent=2) + "\n")
        partial.replace(path)
