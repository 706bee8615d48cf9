"""The example scrape config: its relabeling and honor_labels on a real Prometheus, with fake discovery."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from nufi_sandbox.prometheus import PrometheusServer
from support.exporter import serving_text

from .deploy_manifests import DEPLOY_DIR
from .deploy_prometheus import FakePod, simulate_discovery

CONFIG_FILE = DEPLOY_DIR / "prometheus" / "prometheus.yml"

DCGM = FakePod(
    "gpu-operator",
    "nvidia-dcgm-exporter-x7k2p",
    "gpu-node-1",
    "DaemonSet",
    "nvidia-dcgm-exporter",
    "nvidia-dcgm-exporter",
    9400,
    "metrics",
)
FURIOSA = FakePod(
    "furiosa-system",
    "furiosa-metrics-exporter-q9w8e",
    "npu-node-1",
    "DaemonSet",
    "furiosa-metrics-exporter",
    "exporter",
    6254,
    "http",
)
RBLN = FakePod(
    "rbln-system",
    "rbln-metrics-exporter-m3n4b",
    "npu-node-2",
    "DaemonSet",
    "rbln-metrics-exporter",
    "exporter",
    9090,
    "metrics",
)
LPU = FakePod(
    "mock-lpu",
    "mock-lpu-exporter-z5x6c",
    "lpu-node-1",
    "DaemonSet",
    "mock-lpu-exporter",
    "exporter",
    9850,
    "metrics",
    (("app.kubernetes.io/name", "mock-lpu-exporter"),),
)
NUFI = FakePod(
    "nufi",
    "nufi-7d9f8c6b5-abcde",
    "cpu-node-1",
    "ReplicaSet",
    "nufi-7d9f8c6b5",
    "nufi",
    8080,
    "http",
    (("app.kubernetes.io/name", "nufi"),),
)
# Pods every cluster has, on the same ports or port names: no job may pick them up.
DECOYS = [
    FakePod(
        "monitoring",
        "prometheus-server-0",
        "cpu-node-1",
        "StatefulSet",
        "prometheus-server",
        "prometheus",
        9090,
        "web",
    ),
    FakePod(
        "monitoring",
        "node-exporter-h8j9k",
        "lpu-node-1",
        "DaemonSet",
        "node-exporter",
        "node-exporter",
        9100,
        "metrics",
    ),
    FakePod(
        "team-a",
        "nufi-lookalike-0",
        "cpu-node-1",
        "StatefulSet",
        "nufi-lookalike",
        "app",
        8080,
        "http",
        (("app.kubernetes.io/name", "nufi"),),
    ),
    FakePod(
        "team-a",
        "mock-lpu-exporter-copy-0",
        "lpu-node-2",
        "DaemonSet",
        "mock-lpu-exporter",
        "exporter",
        9850,
        "metrics",
        (("app.kubernetes.io/name", "mock-lpu-exporter"),),
    ),
]

EXPOSITIONS = {
    DCGM: (
        'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-0a",device="nvidia0",modelName="NVIDIA H100",'
        'Hostname="gpu-node-1",container="server",namespace="team-a",pod="llm-0"} 87\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-1b",device="nvidia1",modelName="NVIDIA H100",'
        'Hostname="gpu-node-1"} 0\n'
    ),
    FURIOSA: (
        'furiosa_npu_core_utilization{arch="rngd",core="0",device="npu0",uuid="F0",'
        'hostname="npu-node-1",namespace="team-a",pod="bert-0",container="main"} 50\n'
    ),
    RBLN: 'rbln_npu_utilization{card="RBLN-CA25",name="rbln0",uuid="R0",hostname="npu-node-2"} 12\n',
    LPU: (
        'lpu_utilization_percent{node="lpu-node-1",device="lpu0",namespace="team-a",pod="llama-0"} 90\n'
        'lpu_utilization_percent{node="lpu-node-1",device="lpu1"} 1\n'
    ),
    NUFI: "nufi_build_info 1\n",
}


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(CONFIG_FILE.read_text())
    return loaded


def _job(config: dict[str, Any], name: str) -> dict[str, Any]:
    jobs: list[dict[str, Any]] = [j for j in config["scrape_configs"] if j["job_name"] == name]
    assert len(jobs) == 1, f"expected one job {name}"
    return jobs[0]


@pytest.fixture(scope="module")
def exporters() -> Iterator[dict[FakePod, str]]:
    """Each pod's exporter, by its scrape address."""
    decoy_text = "decoy_metric 1\n"
    with contextlib.ExitStack() as stack:
        yield {
            pod: stack.enter_context(serving_text(EXPOSITIONS.get(pod, decoy_text)))
            for pod in [*EXPOSITIONS, *DECOYS]
        }


@pytest.fixture(scope="module")
def simulated(config: dict[str, Any], exporters: dict[FakePod, str]) -> dict[str, Any]:
    return simulate_discovery(config, list(exporters.items()))


@pytest.fixture(scope="module")
async def scraping(
    simulated: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[PrometheusServer]:
    """A Prometheus of this module's own running the example config.

    Not the suite's shared one: these series use the real exporters' metric names, which other tests
    count in the shared server's storage.
    """
    server = PrometheusServer(work_dir=tmp_path_factory.mktemp("prometheus-example")).start()
    try:
        server.config_path.write_text(yaml.safe_dump(simulated, sort_keys=False))
        async with httpx.AsyncClient(timeout=30.0) as client:
            response = await client.post(f"{server.url}/-/reload")
        assert response.status_code == 200, f"Prometheus refused the example config: {response.text}"
        for metric in (
            "DCGM_FI_DEV_GPU_UTIL",
            "furiosa_npu_core_utilization",
            "rbln_npu_utilization",
            "lpu_utilization_percent",
            "nufi_build_info",
        ):
            await server.wait_for_series(metric, timeout=30.0)
        yield server
    finally:
        server.stop()


async def _series(server: PrometheusServer, query: str) -> dict[str, dict[str, str]]:
    """Series of `query` keyed by their device label (gpu, device or name)."""
    result = await server.query(query)
    keyed: dict[str, dict[str, str]] = {}
    for item in result:
        labels: dict[str, str] = item["metric"]
        keyed[labels.get("device") or labels.get("name") or ""] = labels
    return keyed


def test_the_file_is_a_valid_prometheus_config_once_discovery_is_filled_in(
    simulated: dict[str, Any], tmp_path: Path
) -> None:
    # Debian's promtool lacks Kubernetes discovery, so it checks the simulated form (same relabeling).
    promtool = shutil.which("promtool") or "/usr/bin/promtool"
    path = tmp_path / "prometheus.yml"
    path.write_text(yaml.safe_dump(simulated))
    result = subprocess.run(
        [promtool, "check", "config", str(path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_job_discovers_pods_in_the_cluster(config: dict[str, Any]) -> None:
    names = [job["job_name"] for job in config["scrape_configs"]]
    assert names == [
        "dcgm-exporter",
        "furiosa-metrics-exporter",
        "rbln-metrics-exporter",
        "mock-lpu-exporter",
        "nufi",
    ]
    for job in config["scrape_configs"]:
        assert [sd["role"] for sd in job["kubernetes_sd_configs"]] == ["pod"], job["job_name"]


@pytest.mark.parametrize(
    ("job", "port"),
    [("dcgm-exporter", "9400"), ("furiosa-metrics-exporter", "6254"), ("rbln-metrics-exporter", "9090")],
)
def test_official_exporters_are_scraped_on_their_default_ports(
    config: dict[str, Any], job: str, port: str
) -> None:
    keeps = [rule for rule in _job(config, job)["relabel_configs"] if rule.get("action") == "keep"]
    port_rules = [r for r in keeps if r["source_labels"] == ["__meta_kubernetes_pod_container_port_number"]]
    assert [r["regex"] for r in port_rules] == [port]


def test_honor_labels_is_explicit_and_never_lets_the_exporter_pod_pose_as_the_workload(
    config: dict[str, Any],
) -> None:
    assert _job(config, "dcgm-exporter")["honor_labels"] is False
    for job in config["scrape_configs"]:
        if job["job_name"] == "nufi":
            continue
        assert "honor_labels" in job, f"{job['job_name']}: say which labels win"
        if job["honor_labels"]:
            # The exporter's pod/namespace are kept; a target label of the same name would fill
            # them in on devices that no workload holds.
            targets = {rule.get("target_label") for rule in job["relabel_configs"]}
            assert not targets & {"pod", "namespace", "container"}, job["job_name"]


async def test_each_job_keeps_exactly_its_own_exporter(scraping: PrometheusServer) -> None:
    by_job: dict[str, list[str]] = {}
    for target in await scraping.targets():
        by_job.setdefault(target["scrapePool"], []).append(
            target["discoveredLabels"]["__meta_kubernetes_pod_name"]
        )
    assert by_job == {
        "dcgm-exporter": [DCGM.name],
        "furiosa-metrics-exporter": [FURIOSA.name],
        "rbln-metrics-exporter": [RBLN.name],
        "mock-lpu-exporter": [LPU.name],
        "nufi": [NUFI.name],
    }


async def test_dcgm_workload_labels_become_exported_labels(scraping: PrometheusServer) -> None:
    gpus = await _series(scraping, "DCGM_FI_DEV_GPU_UTIL")
    busy, idle = gpus["nvidia0"], gpus["nvidia1"]
    assert (busy["exported_namespace"], busy["exported_pod"], busy["exported_container"]) == (
        "team-a",
        "llm-0",
        "server",
    )
    # Target labels name the exporter pod, as a ServiceMonitor would.
    assert (busy["namespace"], busy["pod"], busy["node"]) == (DCGM.namespace, DCGM.name, DCGM.node)
    assert "exported_pod" not in idle


async def test_honoured_exporters_keep_their_workload_labels(scraping: PrometheusServer) -> None:
    (npu,) = (await _series(scraping, "furiosa_npu_core_utilization")).values()
    assert (npu["namespace"], npu["pod"], npu["container"]) == ("team-a", "bert-0", "main")
    assert (npu["exporter_pod"], npu["node"]) == (FURIOSA.name, FURIOSA.node)
    (atom,) = (await _series(scraping, "rbln_npu_utilization")).values()
    assert "pod" not in atom and "namespace" not in atom, "an idle device must not be attributed"
    assert (atom["exporter_namespace"], atom["node"]) == (RBLN.namespace, RBLN.node)


async def test_mock_lpu_devices_are_attributed_to_their_workload_only(scraping: PrometheusServer) -> None:
    lpus = await _series(scraping, "lpu_utilization_percent")
    assert (lpus["lpu0"]["namespace"], lpus["lpu0"]["pod"]) == ("team-a", "llama-0")
    assert "pod" not in lpus["lpu1"] and "namespace" not in lpus["lpu1"]
    assert {lpus[d]["exporter_pod"] for d in lpus} == {LPU.name}
    assert {lpus[d]["node"] for d in lpus} == {"lpu-node-1"}


async def test_nufi_is_scraped_in_its_namespace(scraping: PrometheusServer) -> None:
    (series,) = await scraping.query("nufi_build_info")
    assert (series["metric"]["namespace"], series["metric"]["pod"]) == (NUFI.namespace, NUFI.name)
