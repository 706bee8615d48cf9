"""What one inference server is: its model, its pacing, and the pod, node and devices it runs on."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nufi_mock.deviceplugin.allocation import VISIBLE_DEVICES_ENV

DEFAULT_MODEL = "mock-lpu-llm"


@dataclass(frozen=True)
class ServedBy:
    """Where the server runs, as the kubelet tells a container (environment variables)."""

    pod: str
    namespace: str | None = None
    node: str | None = None
    devices: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str], devices_env: str = VISIBLE_DEVICES_ENV) -> ServedBy:
        # POD_NAME first: a process outside a container inherits HOSTNAME from its shell, while a
        # container's HOSTNAME is its pod's name.
        pod = env.get("POD_NAME") or env.get("HOSTNAME") or socket.gethostname()
        devices = tuple(d.strip() for d in env.get(devices_env, "").split(",") if d.strip())
        return cls(
            pod=pod,
            namespace=env.get("POD_NAMESPACE") or None,
            node=env.get("NODE_NAME") or None,
            devices=devices,
        )

    @property
    def source(self) -> str:
        """How the exporter knows this server's load: namespace/pod, or the pod alone."""
        return f"{self.namespace}/{self.pod}" if self.namespace else self.pod

    def sentence(self) -> str:
        devices = ",".join(self.devices) or "none"
        return f"Served by pod {self.pod} on node {self.node or 'unknown'} with devices {devices}."

    def as_json(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "namespace": self.namespace,
            "node": self.node,
            "devices": list(self.devices),
        }

    def headers(self) -> dict[str, str]:
        headers = {"x-served-by-pod": self.pod}
        if self.node:
            headers["x-served-by-node"] = self.node
        if self.devices:
            headers["x-served-by-devices"] = ",".join(self.devices)
        return headers


@dataclass(frozen=True)
class InferenceConfig:
    served_by: ServedBy = field(default_factory=lambda: ServedBy.from_env(os.environ))
    model: str = DEFAULT_MODEL
    warmup_seconds: float = 0.0
    tokens_per_second: float = 0.0
    """Simulated generation speed; 0 answers at once."""
    exporter_url: str | None = None
    """The node's mock exporter, told this server's load; None: load is not reported."""
    saturation_rps: float = 2.0
    """Requests per second at which the devices are fully busy."""
    load_window_seconds: float = 10.0
    """Over how long the request rate is measured."""
    report_interval_seconds: float = 1.0
