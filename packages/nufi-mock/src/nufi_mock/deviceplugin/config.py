"""Settings of one device plugin process."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nufi_mock.kubelet_api import DEFAULT_DEVICE_PLUGIN_PATH, KUBELET_SOCKET_NAME

from .allocation import DeviceSpecMode

DEFAULT_RESOURCE_NAME = "hyperaccel.ai/lpu"


def default_socket_name(resource_name: str) -> str:
    """``<name>.sock`` from ``<domain>/<name>``, the way vendor plugins name theirs."""
    return f"{resource_name.rsplit('/', 1)[-1]}.sock"


def default_health_file(plugin_dir: Path, socket_name: str) -> Path:
    return plugin_dir / f"{Path(socket_name).stem}.health.json"


@dataclass(frozen=True)
class PluginConfig:
    resource_name: str = DEFAULT_RESOURCE_NAME
    devices: int = 4
    numa_nodes: int = 2
    plugin_dir: Path = Path(DEFAULT_DEVICE_PLUGIN_PATH)
    socket_name: str = ""
    health_file: Path | None = None
    device_specs: DeviceSpecMode = DeviceSpecMode.AUTO
    host_share: str | None = None
    watch_interval: float = 0.5

    @property
    def endpoint(self) -> str:
        return self.socket_name or default_socket_name(self.resource_name)

    @property
    def plugin_socket(self) -> Path:
        return self.plugin_dir / self.endpoint

    @property
    def kubelet_socket(self) -> Path:
        return self.plugin_dir / KUBELET_SOCKET_NAME

    @property
    def health_path(self) -> Path:
        return self.health_file or default_health_file(self.plugin_dir, self.endpoint)
