"""What a vendor profile is: metric names, labels and units rendered from device readings."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from prometheus_client.metrics_core import Metric

from ..attribution import PodResourcesApi
from ..hardware import HardwareSpec
from ..readings import Quantity, Reading


class Naming(StrEnum):
    """Which generation of a vendor's names to emit."""

    CURRENT = "current"
    LEGACY = "legacy"
    BOTH = "both"


@dataclass(frozen=True)
class OverrideTarget:
    """A metric the control endpoint may override: the quantity behind it and the factor that turns one
    of its units into the canonical unit (MiB -> bytes is 1048576). ``flipped``: a 0/1 series whose 1
    means what the canonical 0 does (rbln_npu_health's 1 is inactive, health's 1 healthy)."""

    quantity: Quantity
    factor: float = 1.0
    flipped: bool = False

    def canonical(self, value: float) -> float:
        """``value``, given in this metric's unit, in the quantity's canonical unit."""
        return 1.0 - value if self.flipped else value * self.factor


Labels = Mapping[str, str | None]


class Families:
    """Collects samples into metric families in first-seen order; labels whose value is None are left
    out, so one family can hold series with and without pod labels."""

    def __init__(self) -> None:
        self._families: dict[str, Metric] = {}

    def gauge(self, name: str, documentation: str, labels: Labels, value: float) -> None:
        family = self._families.get(name)
        if family is None:
            family = self._families[name] = Metric(name, documentation, "gauge")
        family.add_sample(name, {k: v for k, v in labels.items() if v is not None}, float(value))

    def metrics(self) -> list[Metric]:
        return list(self._families.values())


class Profile(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    default_port: ClassVar[int]
    pod_resources_api: ClassVar[PodResourcesApi]
    resource_patterns: ClassVar[tuple[str, ...]]
    """Extended resources whose devices this exporter attributes (``*`` = prefix)."""
    hardware: ClassVar[HardwareSpec]
    namings: ClassVar[tuple[Naming, ...]] = (Naming.CURRENT,)

    def __init__(self, naming: Naming = Naming.CURRENT, *, quirks: bool = False) -> None:
        if naming not in self.namings:
            offered = ", ".join(n.value for n in self.namings)
            raise ValueError(f"profile {self.name} offers naming {offered}, not {naming.value}")
        self.naming = naming
        # What real exporters of this vendor emit beyond their documentation (each profile says which).
        self.quirks = quirks

    @abstractmethod
    def device_label(self, index: int) -> str:
        """How this vendor names device ``index`` (``npu0``, ``nvidia0``, ...)."""

    @abstractmethod
    def override_targets(self) -> dict[str, OverrideTarget]:
        """Metric names emitted by this profile that the control endpoint accepts as ``metric``."""

    @abstractmethod
    def render(self, readings: Sequence[Reading]) -> Iterable[Metric]:
        """The metric families for ``readings``."""
