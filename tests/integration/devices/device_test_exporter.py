"""A small Prometheus exporter for device tests: fixed series in the shapes real exporters emit.

Series of one metric may carry different label sets (as DCGM's `Hostname`/`hostname` across versions
do), which the client library's Gauge cannot express, so a custom collector yields them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from prometheus_client import CollectorRegistry
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from support.exporter import serving_registry


@dataclass(frozen=True)
class Series:
    name: str
    labels: dict[str, str]
    value: float


class FixedSeries(Collector):
    """A collector that always reports the given series as gauges."""

    def __init__(self, series: Sequence[Series]) -> None:
        self._series = list(series)

    def collect(self) -> Iterable[Metric]:
        families: dict[str, Metric] = {}
        for item in self._series:
            family = families.setdefault(item.name, Metric(item.name, f"test series {item.name}", "gauge"))
            family.add_sample(item.name, item.labels, item.value)
        return list(families.values())


@contextmanager
def serving(series: Sequence[Series]) -> Iterator[str]:
    """Serve `series` at http://127.0.0.1:<free port>/metrics; yields "127.0.0.1:<port>"."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FixedSeries(series))
    with serving_registry(registry, name="device-test-exporter") as target:
        yield target
