"""All simulated devices of all simulated nodes, and how to find one by any of its names."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from nufi_mock.inventory import mock_devices

from .dynamics import DeviceDynamics
from .hardware import HardwareSpec, ThermalModel
from .readings import DeviceIdentity


def device_aliases(identity: DeviceIdentity, label: str) -> list[str]:
    """Every name a device may be given by the kubelet or a user, lower-cased: the plugin id, the
    profile's device label, the UUID (also DCGM's ``GPU-`` form), the PCI address and the index."""
    uuid = identity.uuid
    return [
        identity.plugin_id,
        label,
        uuid,
        f"gpu-{uuid}",
        identity.pci_address(4),
        identity.pci_address(8),
        str(identity.index),
    ]


class Fleet:
    def __init__(
        self,
        nodes: Iterable[str],
        *,
        devices_per_node: int,
        numa_nodes: int,
        hardware: HardwareSpec,
        thermal: ThermalModel,
        seed: int,
        device_label: Callable[[int], str],
    ) -> None:
        self.nodes = list(dict.fromkeys(nodes))
        self.devices: dict[tuple[str, int], DeviceIdentity] = {}
        self.dynamics: dict[tuple[str, int], DeviceDynamics] = {}
        self._aliases: dict[str, dict[str, int]] = {}
        for node in self.nodes:
            names: dict[str, int] = {}
            for device in mock_devices(devices_per_node, numa_nodes):
                identity = DeviceIdentity(node, device.index, device.numa_node)
                key = (node, device.index)
                self.devices[key] = identity
                self.dynamics[key] = DeviceDynamics(f"{seed}/{node}/{device.index}", hardware, thermal)
                for alias in device_aliases(identity, device_label(device.index)):
                    names.setdefault(alias.lower(), device.index)
            self._aliases[node] = names

    def resolve(self, node: str, name: str) -> int | None:
        """The index of the device of ``node`` known as ``name``, or None."""
        return self._aliases.get(node, {}).get(name.strip().lower())

    def step(self, dt: float, load: Mapping[str, Mapping[int, float]] | None = None) -> None:
        """``load``: the utilisation workloads report, per node and device index; a device without a
        report idles, whether a pod holds it or not."""
        load = load or {}
        for (node, index), dynamics in self.dynamics.items():
            dynamics.step(dt, load.get(node, {}).get(index))
