"""What the exporter knows about one device at one moment, in canonical units."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nufi_mock.inventory import DEVICE_PREFIX, device_uuid


class Quantity(StrEnum):
    """A measured quantity; its canonical unit is fixed and profiles convert from it."""

    UTILIZATION = "utilization"
    MEMORY_USED = "memory_used"
    MEMORY_TOTAL = "memory_total"
    TEMPERATURE = "temperature"
    POWER = "power"
    HEALTH = "health"
    """1 healthy, 0 unhealthy: the convention of NuFi's ``health`` expression; profiles convert."""

    @property
    def unit(self) -> str:
        return _UNITS[self]


_UNITS = {
    Quantity.UTILIZATION: "percent",
    Quantity.MEMORY_USED: "bytes",
    Quantity.MEMORY_TOTAL: "bytes",
    Quantity.TEMPERATURE: "celsius",
    Quantity.POWER: "watts",
    Quantity.HEALTH: "1 healthy, 0 unhealthy",
}


@dataclass(frozen=True)
class PodRef:
    namespace: str
    pod: str
    container: str


@dataclass(frozen=True)
class DeviceIdentity:
    """Stable names of one simulated device; the same node and index always give the same names."""

    node: str
    index: int
    numa_node: int

    @property
    def plugin_id(self) -> str:
        """The id the mock device plugin reports to the kubelet."""
        return f"{DEVICE_PREFIX}{self.index}"

    @property
    def uuid(self) -> str:
        return device_uuid(self.node, self.index)

    @property
    def pci_bus(self) -> int:
        # Spread over the bus numbers like cards in separate slots.
        return (0x18 + 0x11 * self.index) % 0x100

    def pci_address(self, domain_digits: int = 4) -> str:
        return f"{0:0{domain_digits}x}:{self.pci_bus:02x}:00.0"


@dataclass(frozen=True)
class Reading:
    """One device's values after overrides: % , bytes, °C, W, and whether it is healthy."""

    device: DeviceIdentity
    utilization: float
    core_utilization: tuple[float, ...]
    memory_used: float
    memory_total: float
    temperature: float
    power: float
    owner: PodRef | None
    pod_attribution: bool
    """Whether the exporter asks the kubelet about this node's pods (vendors' Kubernetes mode)."""
    healthy: bool = True
    """A simulated device never fails by itself; only an override makes it unhealthy."""
