"""Settings of one DRA driver process, and the LPU models it can play."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nufi_mock.kubelet_api import DEFAULT_CDI_DIR, DEFAULT_PLUGINS_DIR, DEFAULT_PLUGINS_REGISTRY

DRIVER_NAME = "lpu.hyperaccel.ai"
"""The driver's name in ResourceSlices, claim results and its DeviceClass's selector."""

EXTENDED_RESOURCE_NAME = "hyperaccel.ai/lpu"
"""The device plugin's resource name, which the DeviceClass declares so that pods asking for it in
``limits`` are served by DRA on nodes the driver serves (KEP-5004)."""

CDI_KIND = "hyperaccel.ai/lpu"
"""The CDI vendor/class of the devices the driver prepares: ids read ``hyperaccel.ai/lpu=<name>``."""


def device_class() -> dict[str, Any]:
    """The DeviceClass shipped with the driver (deploy/mock-lpu/dra-deviceclass.yaml), named after it."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": DRIVER_NAME, "labels": {"app.kubernetes.io/part-of": "nufi"}},
        "spec": {
            "selectors": [{"cel": {"expression": f"device.driver == '{DRIVER_NAME}'"}}],
            "extendedResourceName": EXTENDED_RESOURCE_NAME,
        },
    }


@dataclass(frozen=True)
class LpuModel:
    """What a device of one model publishes besides its identity."""

    name: str
    memory_gib: int
    firmware_version: str
    """A semantic version (the slice's ``firmwareVersion`` attribute)."""

    @property
    def memory(self) -> str:
        """Device memory as a Kubernetes quantity (the slice's ``capacity.memory``)."""
        return f"{self.memory_gib}Gi"


MODELS: dict[str, LpuModel] = {
    model.name: model
    for model in (
        LpuModel("lpu-16g", 16, "1.4.2"),
        LpuModel("lpu-32g", 32, "2.1.0"),
        LpuModel("lpu-64g", 64, "2.1.0"),
    )
}


@dataclass(frozen=True)
class DriverConfig:
    node: str
    devices: int = 4
    numa_nodes: int = 2
    model: str = "lpu-16g"
    registry_dir: Path = Path(DEFAULT_PLUGINS_REGISTRY)
    plugins_dir: Path = Path(DEFAULT_PLUGINS_DIR)
    cdi_dir: Path = Path(DEFAULT_CDI_DIR)
    health_file: Path | None = None
    watch_interval: float = 0.5

    @property
    def lpu_model(self) -> LpuModel:
        return MODELS[self.model]

    @property
    def registration_socket(self) -> Path:
        """Where the kubelet's plugin watcher finds the driver: ``<driver>-reg.sock``, named as upstream."""
        return self.registry_dir / f"{DRIVER_NAME}-reg.sock"

    @property
    def plugin_socket(self) -> Path:
        """The DRAPlugin service, in the driver's own folder of the kubelet's plugins directory."""
        return self.plugins_dir / DRIVER_NAME / "dra.sock"

    @property
    def health_path(self) -> Path:
        return self.health_file or self.plugins_dir / DRIVER_NAME / "health.json"
