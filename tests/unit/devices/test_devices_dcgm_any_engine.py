"""DCGM attribution from the labels the engine returns, whatever its PromQL dialect: the preset's
`label_replace` chain as VictoriaMetrics 1.79 really evaluated it (captured from the binary) still gives
an idle GPU no pod, as Prometheus' evaluation of the same chain does."""

from __future__ import annotations

import pytest

from nufi.devices.official.nvidia import PRESET, DcgmFetcher
from nufi.devices.readings import assemble_readings
from nufi.prom import QueryResult, Sample

pytestmark = pytest.mark.unit

T = 1_796_507_000.0
# The reduced utilization query's answer on VictoriaMetrics (honor_labels: true): an idle GPU (the
# exporter's own pod and container), one held by a pod the exporter renamed, one held by a plain pod.
VICTORIAMETRICS = [
    ({"hostname": "n1", "gpu": "0", "exported_pod": "nvidia-dcgm-exporter",
      "exported_namespace": "gpu-operator", "exported_container": "nvidia-dcgm-exporter"}, 5.0),
    ({"hostname": "n1", "gpu": "1", "exported_pod": "train-0", "exported_namespace": "ml",
      "exported_container": "main"}, 90.0),
    ({"hostname": "n1", "gpu": "2", "exported_pod": "train-1", "exported_namespace": "ml",
      "exported_container": "main"}, 70.0),
]  # fmt: skip
# The same on Prometheus: the chain removed the idle GPU's workload already.
PROMETHEUS = [({"hostname": "n1", "gpu": "0", "exported_container": "nvidia-dcgm-exporter"}, 5.0)]


def attributed(rows: list[tuple[dict[str, str], float]]) -> dict[str, tuple[str | None, str | None]]:
    fetcher = DcgmFetcher()
    samples = tuple(Sample(metric=labels, timestamp=T, value=value) for labels, value in rows)
    readings = assemble_readings(
        PRESET.labels,
        PRESET.metrics,
        {"utilization": QueryResult("vector", samples=samples)},
        queried_at=T,
        label_value=fetcher.label_value,
        usable=fetcher.usable,
    )
    return {reading.device: (reading.pod, reading.namespace) for reading in readings.devices}


def test_an_idle_gpu_has_no_pod_on_either_engine() -> None:
    assert attributed(VICTORIAMETRICS) == {"0": (None, None), "1": ("train-0", "ml"), "2": ("train-1", "ml")}
    assert attributed(PROMETHEUS) == {"0": (None, None)}


def test_the_fetcher_reads_the_container_it_judges_by() -> None:
    assert DcgmFetcher().labels_read(PRESET) == (
        "hostname",
        "gpu",
        "exported_pod",
        "exported_namespace",
        "exported_container",
    )


@pytest.mark.parametrize("pod", ["dcgm-exporter-x7k2p", "nvidia-dcgm-exporter-ab12c"])
def test_a_gpu_named_after_the_exporters_pod_has_no_pod(pod: str) -> None:
    rows = [({"hostname": "n1", "gpu": "0", "exported_pod": pod, "exported_namespace": "gpu-operator"}, 1.0)]
    assert attributed(rows) == {"0": (None, None)}
