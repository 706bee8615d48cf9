"""The world the monitoring tests observe: a dev cluster with pods holding devices, the mock exporter in
each vendor profile with pinned values, a fixed-series exporter with hostile label values, and the real
Prometheus scraping them every second.

Node and device layout (exporters run without PodResources, so pods come from the cluster):

| nodes          | resource key          | exporter                    | pods holding devices   |
|----------------|-----------------------|-----------------------------|------------------------|
| mon-lpu-1      | hyperaccel.ai/lpu: 4  | lpu profile                 | serving/solo: 4        |
| mon-lpu-2      | hyperaccel.ai/lpu: 4  | lpu profile                 | serving/half: 2        |
| mon-gpu-1      | nvidia.com/gpu: 2     | dcgm, ServiceMonitor labels | ml/a: 1, ml/b: 1       |
| mon-gpu-2      | nvidia.com/gpu: 2     | dcgm, ServiceMonitor labels |                        |
| mon-npu-1      | furiosa.ai/rngd: 2    | furiosa                     |                        |
| mon-atom-1     | rebellions.ai/ATOM: 2 | rbln                        |                        |
| mon-gone-1     | example.com/gone: 2   | lpu profile, stopped later  |                        |
| mon-acme-1     | example.com/acc: 2    | fixed series                | default/cluster-pod: 2 |
| mon-blink-1    | example.com/blink: 2  | lpu profile, stopped, back  |                        |
| mon-quiet-1    | example.com/quiet: 3  | none                        |                        |

Node names carry a `mon-` prefix: the session's Prometheus may still hold series of other modules'
jobs (a job dropped from the configuration leaves its series unmarked for Prometheus' 5-minute
lookback), and the official presets select every series of their metrics. Assertions about presets
therefore look at these nodes only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from prometheus_client import CollectorRegistry
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from support.dev_cluster import prepared_cluster
from support.exporter import serving_registry

GiB = 1024**3
MiB = 1024**2
PREFIX = "mon-"

NODES: dict[str, dict[str, int]] = {
    "mon-lpu-1": {"hyperaccel.ai/lpu": 4},
    "mon-lpu-2": {"hyperaccel.ai/lpu": 4},
    "mon-gpu-1": {"nvidia.com/gpu": 2},
    "mon-gpu-2": {"nvidia.com/gpu": 2},
    "mon-npu-1": {"furiosa.ai/rngd": 2},
    "mon-atom-1": {"rebellions.ai/ATOM": 2},
    "mon-gone-1": {"example.com/gone": 2},
    "mon-acme-1": {"example.com/acc": 2},
    "mon-blink-1": {"example.com/blink": 2},
    "mon-quiet-1": {"example.com/quiet": 3},
}
# (namespace, pod, node, resource key, count)
PODS = [
    ("serving", "solo", "mon-lpu-1", "hyperaccel.ai/lpu", 4),
    ("serving", "half", "mon-lpu-2", "hyperaccel.ai/lpu", 2),
    ("ml", "a", "mon-gpu-1", "nvidia.com/gpu", 1),
    ("ml", "b", "mon-gpu-1", "nvidia.com/gpu", 1),
    ("default", "cluster-pod", "mon-acme-1", "example.com/acc", 2),
]


@dataclass(frozen=True)
class ExporterSpec:
    job: str
    profile: str
    nodes: tuple[str, ...]
    devices: int
    # Values forced through the control endpoint: (node, device or None, metric, value).
    pins: tuple[tuple[str, str | None, str, float], ...] = ()
    target_labels: dict[str, str] = field(default_factory=dict)


EXPORTERS = [
    ExporterSpec(
        "monitoring-lpu",
        "lpu",
        ("mon-lpu-1", "mon-lpu-2"),
        4,
        (
            ("mon-lpu-1", None, "utilization", 40.0),
            ("mon-lpu-1", "lpu2", "utilization", 90.0),
            ("mon-lpu-1", None, "memory_used", 3 * GiB),
            ("mon-lpu-1", None, "temperature", 61.25),
            ("mon-lpu-2", None, "utilization", 20.0),
            ("mon-lpu-2", None, "memory_used", 1 * GiB),
            ("mon-lpu-2", None, "temperature", 45.5),
        ),
    ),
    ExporterSpec(
        "monitoring-dcgm",
        "dcgm",
        ("mon-gpu-1", "mon-gpu-2"),
        2,
        tuple(
            (node, None, metric, value)
            for node in ("mon-gpu-1", "mon-gpu-2")
            for metric, value in (
                ("DCGM_FI_DEV_GPU_UTIL", 87.0),
                ("DCGM_FI_DEV_FB_USED", 30000.0),  # MiB
                ("DCGM_FI_DEV_GPU_TEMP", 71.0),
                ("DCGM_FI_DEV_POWER_USAGE", 245.5),
            )
        ),
        # What a ServiceMonitor puts on the exporter's own target (honor_labels: false).
        {"pod": "dcgm-exporter-x7k2p", "namespace": "gpu-operator"},
    ),
    ExporterSpec(
        "monitoring-furiosa",
        "furiosa",
        ("mon-npu-1",),
        2,
        (
            ("mon-npu-1", None, "utilization", 55.0),
            ("mon-npu-1", None, "memory_used", 12e9),
            ("mon-npu-1", None, "temperature", 48.5),
            ("mon-npu-1", None, "power", 120.25),
        ),
    ),
    ExporterSpec(
        "monitoring-rbln",
        "rbln",
        ("mon-atom-1",),
        2,
        (
            ("mon-atom-1", None, "utilization", 33.5),
            ("mon-atom-1", None, "memory_used", 4e9),
            ("mon-atom-1", None, "temperature", 52.5),
            ("mon-atom-1", None, "power", 70.5),
        ),
    ),
    ExporterSpec("monitoring-gone", "lpu", ("mon-gone-1",), 2, (("mon-gone-1", None, "temperature", 50.0),)),
    ExporterSpec(
        "monitoring-blink", "lpu", ("mon-blink-1",), 2, (("mon-blink-1", None, "temperature", 58.0),)
    ),
]

# Label values a node or device may carry in a custom exporter, and decoys that a regex, or a `$1`
# expanded by label_replace, would wrongly match.
HOSTILE_NODE = 'we"ird\\node.*|[x]$1${host}'
HOSTILE_DEVICE = 'x"y\\z.+'
ACME_SERIES: list[tuple[dict[str, str], float]] = [
    ({"host": "mon-acme-1", "dev": "d0", "pod": "exporter-pod", "namespace": "team"}, 10.0),
    ({"host": "mon-acme-1", "dev": "d1"}, 20.0),
    ({"host": HOSTILE_NODE, "dev": HOSTILE_DEVICE}, 30.0),
    ({"host": HOSTILE_NODE, "dev": "x"}, 31.0),
    ({"host": 'we"ird\\nodeXYZ|[x]$1${host}', "dev": HOSTILE_DEVICE}, 40.0),  # `.*` as a regex
    ({"host": 'we"ird\\node.*|[x]${host}', "dev": HOSTILE_DEVICE}, 41.0),  # `$1` expanded to ""
    ({"host": "x", "dev": HOSTILE_DEVICE}, 42.0),  # `x` is an alternative of the regex `...|[x]...`
]


class FixedSeries(Collector):
    def __init__(self, name: str, series: Sequence[tuple[dict[str, str], float]]) -> None:
        self._name = name
        self._series = list(series)

    def collect(self) -> Iterable[Metric]:
        family = Metric(self._name, "fixed test series", "gauge")
        for labels, value in self._series:
            family.add_sample(self._name, labels, value)
        return [family]


def serving_fixed(name: str, series: Sequence[tuple[dict[str, str], float]]) -> AbstractContextManager[str]:
    """Serve `series` of metric `name` on a free loopback port; yields "127.0.0.1:<port>"."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FixedSeries(name, series))
    return serving_registry(registry, name="monitoring-fixed-exporter")


def mine(node: str) -> bool:
    return node.startswith(PREFIX)


@dataclass
class RunningExporter:
    spec: ExporterSpec
    process: ManagedProcess
    address: str


def start_exporter(spec: ExporterSpec, log_dir: Path) -> RunningExporter:
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--host", "127.0.0.1", "--port", str(port)]
    argv += [
        "--profile",
        spec.profile,
        "--nodes",
        ",".join(spec.nodes),
        "--devices-per-node",
        str(spec.devices),
    ]
    argv += ["--no-pod-resources", "--interval", "0.5", "--log-format", "json"]
    process = ManagedProcess(spec.job, argv, log_dir=log_dir).start()
    address = f"127.0.0.1:{port}"
    process.wait_ready(
        lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
        20.0,
        "answering /healthz",
    )
    running = RunningExporter(spec, process, address)
    pin(running)
    return running


def pin(exporter: RunningExporter) -> None:
    """Force the exporter's pinned values (again, after a restart)."""
    for node, device, metric, value in exporter.spec.pins:
        body: dict[str, Any] = {"node": node, "device": device, "metric": metric, "value": value}
        response = httpx.post(f"http://{exporter.address}/control/override", json=body, timeout=5.0)
        assert response.status_code in (200, 201), response.text


def start_cluster(work: Path) -> DevClusterProcess:
    nodes = [{"name": name, "device_plugins": False, "capacity": dict(keys)} for name, keys in NODES.items()]
    cluster = prepared_cluster(work, yaml.safe_dump({"nodes": nodes})).start()
    try:
        for namespace in sorted({pod[0] for pod in PODS} - {"default"}):
            created = httpx.post(
                f"{cluster.url}/api/v1/namespaces",
                json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
                headers=cluster.headers,
                timeout=5.0,
            )
            assert created.status_code == 201, created.text
        for namespace, name, node, key, count in PODS:
            body = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": namespace},
                "spec": {
                    "nodeName": node,
                    "containers": [
                        {"name": "main", "image": "busybox", "resources": {"limits": {key: str(count)}}}
                    ],
                },
            }
            created = httpx.post(
                f"{cluster.url}/api/v1/namespaces/{namespace}/pods",
                json=body,
                headers=cluster.headers,
                timeout=5.0,
            )
            assert created.status_code == 201, created.text
    except BaseException:
        cluster.stop()
        raise
    return cluster
