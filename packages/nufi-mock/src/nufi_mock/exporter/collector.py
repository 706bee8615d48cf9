"""The prometheus-client collector: renders the engine's readings through the profile on each scrape."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector, CollectorRegistry

from .engine import ExporterEngine


def rename_labels(metric: Metric, renames: Mapping[str, str]) -> Metric:
    if not renames:
        return metric
    metric.samples = [
        sample._replace(labels={renames.get(name, name): value for name, value in sample.labels.items()})
        for sample in metric.samples
    ]
    return metric


class MockCollector(Collector):
    def __init__(self, engine: ExporterEngine, label_names: Mapping[str, str] | None = None) -> None:
        self.engine = engine
        self.label_names = dict(label_names or {})

    def collect(self) -> Iterable[Metric]:
        for metric in self.engine.profile.render(self.engine.readings()):
            yield rename_labels(metric, self.label_names)


def metrics_registry(
    engine: ExporterEngine, label_names: Mapping[str, str] | None = None
) -> CollectorRegistry:
    """A registry holding only the mock devices' metrics, as the vendors' exporters serve them."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(MockCollector(engine, label_names))
    return registry
