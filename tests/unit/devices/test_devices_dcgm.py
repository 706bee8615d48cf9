"""The NVIDIA preset against what real DCGM scrapes look like (interop-facts §2.4), whatever the
scrape's honor_labels: the node, the device (MIG instances apart), the workload (never the exporter's
own pod), the memory total, and the readings DCGM sends for a field it cannot read."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.devices.official.nvidia import PRESET, DcgmFetcher
from nufi.devices.readings import assemble_readings
from nufi.devices.spec import MetricKey
from nufi.errors import NufiError
from nufi.models.promql import MAX_EXPRESSION_CHARS, MAX_EXPRESSION_DEPTH, nesting_depth, range_problem
from nufi.prom import QueryResult, Sample

from .dcgm_promql import evaluate

LABELS = PRESET.labels
QUERIES = PRESET.metrics.queries()


@dataclass(frozen=True)
class Pod:
    namespace: str
    name: str
    container: str


@dataclass(frozen=True)
class Scrape:
    """One GPU's series as Prometheus stores them, built from what the exporter and the target say."""

    node: str
    gpu: str
    instance: str | None
    owner: Pod | None
    exporter: Pod | None  # the target's Kubernetes labels; None for a static scrape
    honor_labels: bool
    hostname_label: str  # `Hostname` (released) or `hostname` (newer)
    hostname_is_node: bool  # NODE_NAME set, else the exporter pod's hostname
    node_target_label: str | None  # `node` / `kubernetes_node` from relabeling, or none

    def labels(self, metric: str) -> dict[str, str]:
        emitted = {"gpu": self.gpu, "UUID": f"GPU-{self.node}-{self.gpu}", "device": f"nvidia{self.gpu}"}
        if self.instance is not None:
            emitted |= {"GPU_I_ID": self.instance, "GPU_I_PROFILE": "3g.40gb"}
        hostname = self.node if self.hostname_is_node else "dcgm-exporter-wwwjh"
        emitted[self.hostname_label] = hostname
        if self.owner is not None:
            emitted |= {"pod": self.owner.name, "namespace": self.owner.namespace}
            emitted["container"] = self.owner.container
        target = {"job": "dcgm", "instance": "10.0.0.7:9400"}
        if self.exporter is not None:
            target |= {
                "pod": self.exporter.name,
                "namespace": self.exporter.namespace,
                "container": self.exporter.container,
            }
        if self.node_target_label is not None:
            target[self.node_target_label] = self.node
        stored = dict(emitted)
        for name, value in target.items():
            if name not in emitted:
                stored[name] = value
            elif not self.honor_labels:
                stored[f"exported_{name}"] = emitted[name]
                stored[name] = value
        return {"__name__": metric, **stored}


EXPORTER_PODS = st.builds(
    lambda prefix, suffix: f"{prefix}dcgm-exporter-{suffix}",
    st.sampled_from(["nvidia-", "", "gpu-monitoring-"]),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=5, max_size=5),
)
EXPORTERS = st.builds(
    Pod,
    st.sampled_from(["gpu-operator", "monitoring", "kube-system"]),
    EXPORTER_PODS,
    st.sampled_from(["nvidia-dcgm-exporter", "exporter", "dcgm-exporter"]),
)
NAMES = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True).filter(
    lambda name: "dcgm-exporter" not in name
)
WORKLOADS = st.builds(Pod, NAMES, NAMES, NAMES)
SCRAPES = st.builds(
    Scrape,
    node=st.sampled_from(["gpu-1", "ip-10-0-3-17.ec2.internal"]),
    gpu=st.sampled_from(["0", "7"]),
    instance=st.none() | st.sampled_from(["1", "13"]),
    owner=st.none() | WORKLOADS,
    exporter=st.none() | EXPORTERS,
    honor_labels=st.booleans(),
    hostname_label=st.sampled_from(["Hostname", "hostname"]),
    hostname_is_node=st.booleans(),
    node_target_label=st.none() | st.sampled_from(["node", "kubernetes_node"]),
)


def mapped(scrape: Scrape, metric: str = "DCGM_FI_DEV_GPU_TEMP") -> dict[str, str]:
    (result,) = evaluate(QUERIES["temperature"], [(scrape.labels(metric), 60.0)])
    return result[0]


@given(SCRAPES)
def test_the_workload_is_the_pod_holding_the_gpu_and_never_the_exporter(scrape: Scrape) -> None:
    labels = mapped(scrape)
    assert LABELS.pod is not None and LABELS.namespace is not None
    if scrape.owner is None:
        assert LABELS.pod not in labels and LABELS.namespace not in labels
    else:
        assert (labels.get(LABELS.namespace), labels.get(LABELS.pod)) == (
            scrape.owner.namespace,
            scrape.owner.name,
        )
    assert "nufi_dcgm" not in labels


@given(SCRAPES)
def test_the_node_is_the_target_label_when_there_is_one_else_the_hostname(scrape: Scrape) -> None:
    labels = mapped(scrape)
    if scrape.node_target_label is not None or scrape.hostname_is_node:
        assert labels[LABELS.node] == scrape.node
    else:
        assert labels[LABELS.node] == "dcgm-exporter-wwwjh"  # nothing on the series names the node


@given(SCRAPES)
def test_a_mig_instance_is_a_device_of_its_own(scrape: Scrape) -> None:
    expected = scrape.gpu if scrape.instance is None else f"{scrape.gpu}/{scrape.instance}"
    assert mapped(scrape)[LABELS.device] == expected


EXPORTER = Pod("gpu-operator", "nvidia-dcgm-exporter-7xk2p", "nvidia-dcgm-exporter")


@pytest.mark.parametrize("honor_labels", [True, False])
def test_one_card_with_two_mig_instances_and_an_idle_gpu(honor_labels: bool) -> None:
    def scrape(gpu: str, instance: str | None, owner: Pod | None) -> Scrape:
        return Scrape("gpu-1", gpu, instance, owner, EXPORTER, honor_labels, "Hostname", True, None)

    gpus = [
        scrape("0", "1", Pod("ml", "a", "main")),
        scrape("0", "2", Pod("ml", "b", "main")),
        scrape("1", None, None),
    ]
    series = [(gpu.labels("DCGM_FI_DEV_GPU_UTIL"), 50.0) for gpu in gpus]
    assert LABELS.pod is not None
    found = {
        (labels[LABELS.node], labels[LABELS.device]): labels.get(LABELS.pod)
        for labels, _ in evaluate(QUERIES["utilization"], series)
    }
    assert found == {("gpu-1", "0/1"): "a", ("gpu-1", "0/2"): "b", ("gpu-1", "1"): None}


def memory_series(free: float, reserved: float | None) -> list[tuple[dict[str, str], float]]:
    gpu = Scrape("gpu-1", "0", None, None, EXPORTER, False, "Hostname", True, None)
    series = [(gpu.labels("DCGM_FI_DEV_FB_FREE"), free), (gpu.labels("DCGM_FI_DEV_FB_USED"), 1000.0)]
    if reserved is not None:
        series.append((gpu.labels("DCGM_FI_DEV_FB_RESERVED"), reserved))
    return series


@pytest.mark.parametrize(("reserved", "free"), [(567.0, 80353.0 + 567.0), (None, 80353.0)])
def test_free_memory_counts_the_reserved_memory_when_the_exporter_sends_it(
    reserved: float | None, free: float
) -> None:
    (row,) = evaluate(QUERIES["memory_free"], memory_series(80353.0, reserved))
    assert row[1] == free
    assert (row[0][LABELS.node], row[0][LABELS.device]) == ("gpu-1", "0")


def test_the_expressions_stay_well_within_the_bounds() -> None:
    for query in QUERIES.values():
        assert len(query) <= MAX_EXPRESSION_CHARS // 2
        assert nesting_depth(query) <= MAX_EXPRESSION_DEPTH // 2
        assert range_problem(query, max_range_seconds=60, min_step_seconds=1) is None


def reading_of(temperature: float) -> float | None:
    labels = {"hostname": "gpu-1", "gpu": "0"}
    outcomes: dict[MetricKey, QueryResult | NufiError] = {
        "utilization": QueryResult("vector", samples=(Sample(labels, 1.0, 5.0),)),
        "temperature": QueryResult("vector", samples=(Sample(labels, 1.0, temperature),)),
    }
    fetcher = DcgmFetcher()
    (device,) = assemble_readings(
        LABELS, PRESET.metrics, outcomes, label_value=fetcher.label_value, usable=fetcher.usable
    ).devices
    return device.temperature_celsius


@pytest.mark.parametrize("value", [0.0, -0.0, 9223372036854775794.0, float(0x7FFFFFF0), float("nan")])
def test_a_temperature_dcgm_could_not_read_is_not_reported(value: float) -> None:
    assert reading_of(value) is None


@given(st.floats(min_value=0.0, max_value=200.0, exclude_min=True))
def test_any_other_temperature_is_a_reading(value: float) -> None:
    assert reading_of(value) == value


def test_zero_is_a_reading_for_every_quantity_but_temperature() -> None:
    fetcher = DcgmFetcher()
    keys: tuple[MetricKey, ...] = ("utilization", "memory_used", "memory_free", "power")
    assert all(fetcher.usable(key, 0.0) for key in keys)
    assert not fetcher.usable("temperature", 0.0)
