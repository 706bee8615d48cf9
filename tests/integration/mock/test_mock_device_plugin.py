"""`nufi-mock device-plugin` as a process against the dev cluster's simulated kubelet."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from nufi_mock.cli import app
from nufi_mock.deviceplugin import read_health
from nufi_mock.kubelet_api import podresources_v1_pb2, podresources_v1_pb2_grpc
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess
from support.dev_cluster import dev_cluster
from support.polling import eventually, holds

from .mock_support import LPU, Kube, log_events, pod_asking, start_plugin

NODE = "lpu-node-1"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    # Directly under /tmp: a pytest-xdist worker's deeper tmp path would put the kubelet sockets past
    # the 108 bytes a unix socket path may have.
    with dev_cluster(f"nodes:\n  - name: {NODE}\n    capacity: {{cpu: 32}}\n", prefix="mock-dp-") as started:
        yield started


async def pod_devices(socket: Path) -> dict[str, list[str]]:
    """Pod name -> LPU device ids, from the node's PodResources v1 List."""
    async with grpc.aio.insecure_channel(f"unix://{socket}") as channel:
        reply = await podresources_v1_pb2_grpc.PodResourcesListerStub(channel).List(
            podresources_v1_pb2.ListPodResourcesRequest(), timeout=5
        )
    found: dict[str, list[str]] = {}
    for pod in reply.pod_resources:
        for container in pod.containers:
            for devices in container.devices:
                if devices.resource_name == LPU:
                    found.setdefault(pod.name, []).extend(devices.device_ids)
    return found


def set_health(plugin_dir: Path, device: str, health: str) -> str:
    done = CliRunner().invoke(app, ["set-health", "--dir", str(plugin_dir), device, health])
    assert done.exit_code == 0, done.output
    return done.stdout


async def test_plugin_advertises_allocates_by_numa_and_reports_health(
    cluster: DevClusterProcess, tmp_path: Path
) -> None:
    kube = Kube(cluster)
    plugin_dir = cluster.device_plugin_dir(NODE)
    plugin = start_plugin(plugin_dir, tmp_path, "--device-specs", "always")
    try:
        assert await eventually(lambda: _counts(kube, ("4", "4")), within=10)

        # lpu0/lpu1 sit on NUMA node 0, lpu2/lpu3 on node 1. After one device went to `small`, the
        # pair for `infer` fits node 1 whole: the plugin's preference beats the first-free lpu1+lpu2.
        kube.create_pod(pod_asking("small", 1))
        await eventually(lambda: kube.assert_running("small", NODE))
        kube.create_pod(pod_asking("infer", 2))
        await eventually(lambda: kube.assert_running("infer", NODE))

        allocations = [event["devices"] for event in log_events(plugin, "allocate")]
        assert allocations == [["lpu0"], ["lpu2", "lpu3"]]
        [infer_grant] = [e for e in log_events(plugin, "allocate") if len(e["devices"]) == 2]
        assert infer_grant["envs"] == {"LPU_VISIBLE_DEVICES": "lpu2,lpu3"}
        assert infer_grant["device_files"] == ["/dev/lpu2", "/dev/lpu3"]

        held = await pod_devices(cluster.pod_resources_socket(NODE))
        assert sorted(held["infer"]) == ["lpu2", "lpu3"] and held["small"] == ["lpu0"]

        assert "lpu1=Unhealthy" in set_health(plugin_dir, "lpu1", "Unhealthy")
        assert await eventually(lambda: _counts(kube, ("4", "3")), within=5)
        set_health(plugin_dir, "lpu1", "healthy")
        assert await eventually(lambda: _counts(kube, ("4", "4")), within=5)

        # A kubelet restart on the cluster's node wipes the plugin socket; the plugin comes back on its own.
        cluster.restart_kubelet(NODE)
        assert not (plugin_dir / "lpu.sock").exists()
        restarted = time.monotonic()
        await eventually(lambda: holds((plugin_dir / "lpu.sock").exists()), within=5)
        await eventually(lambda: holds(_registrations(plugin) >= 2), within=5)
        assert time.monotonic() - restarted < 5.0
        assert await eventually(lambda: _counts(kube, ("4", "4")), within=5)
    finally:
        plugin.stop()
    assert plugin.returncode == 0
    assert not (plugin_dir / "lpu.sock").exists()


def _registrations(plugin: ManagedProcess) -> int:
    events = log_events(plugin, "registered")
    assert events, "the plugin has not registered yet"
    return int(events[-1]["registrations"])


def _counts(kube: Kube, expected: tuple[str, str]) -> bool:
    counts = kube.lpu_counts(NODE)
    assert counts == expected, counts
    return True


@pytest.mark.parametrize(
    ("device", "health", "message"),
    [("lpu1", "broken", "health must be Healthy or Unhealthy"), ("gpu0", "Unhealthy", "not a device id")],
)
def test_set_health_refuses_bad_input_and_writes_nothing(
    tmp_path: Path, device: str, health: str, message: str
) -> None:
    done = CliRunner().invoke(app, ["set-health", "--dir", str(tmp_path), device, health])
    assert done.exit_code == 2
    assert message in done.stderr
    assert not list(tmp_path.iterdir())


def test_set_health_all_and_back(tmp_path: Path) -> None:
    health_file = tmp_path / "lpu.health.json"
    assert "all=Unhealthy" in set_health(tmp_path, "all", "Unhealthy")
    assert "lpu2=Healthy" in set_health(tmp_path, "lpu2", "Healthy")
    assert read_health(health_file) == {"all": "Unhealthy", "lpu2": "Healthy"}
    assert "all devices Healthy" in set_health(tmp_path, "all", "Healthy")
    assert read_health(health_file) == {}
