"""Readings and exposition parsing shared by the profile tests."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client.exposition import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector, CollectorRegistry

from nufi_mock.exporter.hardware import GIB
from nufi_mock.exporter.profiles import Profile
from nufi_mock.exporter.readings import DeviceIdentity, PodRef, Reading

OWNER = PodRef("team-a", "infer-0", "server")
Series = list[tuple[str, dict[str, str], float]]


def reading(
    index: int,
    *,
    owner: PodRef | None = None,
    node: str = "node-a",
    attribution: bool = True,
    cores: int = 1,
    utilization: float = 50.0,
    healthy: bool = True,
) -> Reading:
    return Reading(
        device=DeviceIdentity(node, index, index // 2),
        utilization=utilization,
        core_utilization=tuple(utilization + c for c in range(cores)),
        memory_used=3 * GIB,
        memory_total=16 * GIB,
        temperature=61.4,
        power=123.45,
        owner=owner,
        pod_attribution=attribution,
        healthy=healthy,
    )


def exposition(profile: Profile, readings: list[Reading]) -> str:
    """The text a scrape would return."""

    class Once(Collector):
        def collect(self) -> Iterable[Metric]:
            return profile.render(readings)

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Once())
    return generate_latest(registry).decode()


def scrape(profile: Profile, readings: list[Reading]) -> Series:
    """Samples as a Prometheus text parser reads them back."""
    return [
        (sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(exposition(profile, readings))
        for sample in family.samples
    ]


def named(series: Series, name: str) -> Series:
    return [s for s in series if s[0] == name]
