"""A deployment that really runs: the dev cluster given the sandbox's runtime map, a mock device
plugin and an LPU exporter per LPU node. Two replicas of the inference image with one LPU each
become Ready on the LPU nodes only; requests through the Service (the API server's services proxy
path NuFi reports) are answered by both pods, the exporter's utilization rises on exactly the
devices those pods hold, and NuFi shows those devices on each pod (from monitoring's attribution)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from integration.mock.mock_support import nufi_mock, wait_answering
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.processes import free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob
from nufi_sandbox.sandbox.images import INFERENCE
from nufi_sandbox.sandbox.runtime_map import sandbox_runtime_map
from nufi_sandbox.sandbox.topology import LPU_RESOURCE, NODES, nodes_yaml
from support.dev_cluster import DEV_HEADERS, dev_cluster
from support.polling import until
from support.world import World, create_project, deployment_body, project_name, register_lpu, serve

LPU_NODES = tuple(node for node in NODES if node.resource_key == LPU_RESOURCE)
# A node without LPUs, so "only on LPU nodes" means something.
OTHER = next(node for node in NODES if node.resource_key != LPU_RESOURCE)
_SAMPLE = re.compile(r"^lpu_utilization_percent\{(?P<labels>[^}]*)\} (?P<value>\S+)$", re.MULTILINE)
_LABEL = re.compile(r'(\w+)="([^"]*)"')


@pytest.fixture(scope="module")
def running(
    logs_dir: Path, idp: IdentityProviderProcess, prometheus: PrometheusServer
) -> Iterator[tuple[World, dict[str, str]]]:
    """The world on a cluster of its own, whose kubelets run the images, and each LPU node's exporter URL."""
    ports = {node.name: free_port() for node in LPU_NODES}
    runtime_map = sandbox_runtime_map(LPU_NODES, ports)
    nodes = nodes_yaml((*LPU_NODES, OTHER))
    with dev_cluster(nodes, prefix="wlr-", runtime_map=runtime_map) as cluster, ExitStack() as stack:
        for node in LPU_NODES:
            plugin_dir = cluster.device_plugin_dir(node.name)
            plugin = nufi_mock(
                f"device-plugin-{node.name}",
                ["device-plugin", "--dir", plugin_dir, "--log-format", "json", "--watch-interval", "0.2"],
                logs_dir,
            ).start()
            stack.callback(plugin.stop)
            exporter = nufi_mock(
                f"exporter-{node.name}",
                [
                    *("exporter", "--profile", "lpu", "--nodes", node.name, "--interval", "0.2"),
                    *("--host", "127.0.0.1", "--port", str(ports[node.name])),
                    *("--pod-resources-socket", f"{node.name}={cluster.pod_resources_socket(node.name)}"),
                ],
                logs_dir,
            ).start()
            stack.callback(exporter.stop)
            wait_answering(exporter, f"127.0.0.1:{ports[node.name]}")
        targets = [f"127.0.0.1:{port}" for port in ports.values()]
        prometheus.set_jobs([ScrapeJob("mock-lpu-exporter", targets, honor_labels=True)])
        world = World.signed_in(cluster, idp, prometheus)
        yield world, {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}


@pytest.fixture
async def nufi_running(
    running: tuple[World, dict[str, str]], tmp_path: Path
) -> AsyncIterator[httpx.AsyncClient]:
    world, _ = running
    settings = world.settings(f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}").model_copy(
        # Prometheus here scrapes every second; monitoring follows as fast.
        update={"monitoring_scrape_interval_seconds": 1.0, "monitoring_refresh_seconds": 1.0}
    )
    async with serve(settings) as client:
        await register_lpu(client, world)
        yield client


async def _utilization(client: httpx.AsyncClient, url: str) -> dict[str, tuple[float, str]]:
    """Device -> (utilization, pod label) at one exporter."""
    found = {}
    for match in _SAMPLE.finditer((await client.get(f"{url}/metrics")).text):
        labels = dict(_LABEL.findall(match["labels"]))
        found[labels["device"]] = (float(match["value"]), labels.get("pod", ""))
    return found


async def _served_by_every_replica(
    client: httpx.AsyncClient, proxy: str, request: dict[str, Any], project: str, pods: dict[str, str]
) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each answer says which pod, node and devices served it; every replica answers, on one device."""
    served: dict[str, tuple[str, tuple[str, ...]]] = {}
    for _ in range(100):
        answer = await client.post(f"{proxy}v1/chat/completions", json=request)
        assert answer.status_code == 200, answer.text
        by = answer.json()["nufi"]
        assert by["namespace"] == project and pods[by["pod"]] == by["node"]
        served[by["pod"]] = (by["node"], tuple(by["devices"]))
    assert set(served) == set(pods), "not every replica answered"
    assert all(len(devices) == 1 for _, devices in served.values())
    return served


async def _heat_until_each_replica_is_hot(
    client: httpx.AsyncClient,
    proxy: str,
    request: dict[str, Any],
    served: dict[str, tuple[str, tuple[str, ...]]],
    exporters: dict[str, str],
) -> None:
    """Requests keep coming until the exporters show each replica's devices hot and held by that pod."""
    stop = asyncio.Event()

    async def traffic() -> None:
        # Bounded: at most 60 s of about 20 requests a second, spread over both replicas.
        for _ in range(1200):
            if stop.is_set():
                return
            await client.post(f"{proxy}v1/chat/completions", json=request)
            await asyncio.sleep(0.05)

    sending = asyncio.create_task(traffic())
    try:

        async def hot() -> bool:
            for pod, (node, devices) in served.items():
                values = await _utilization(client, exporters[node])
                if not all(values[d][0] > 30 and values[d][1] == pod for d in devices):
                    return False
            return True

        await until(hot, within=30.0, every=0.2)
    finally:
        stop.set()
        await sending


async def test_two_replicas_run_on_lpu_nodes_answer_through_the_service_and_heat_their_devices(
    nufi_running: httpx.AsyncClient, running: tuple[World, dict[str, str]]
) -> None:
    world, exporters = running
    nufi = nufi_running
    project = project_name()
    await create_project(nufi, world, project, ["user"])
    try:
        # Saturated by a request a second: the test asserts the heat, not how fast this machine is.
        args = ["inference", "--load-window", "3", "--saturation-rps", "1", "--report-interval", "0.2"]
        body = deployment_body(image=INFERENCE, args=args, replicas=2, resources=None, env=[])
        created = await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
        assert created.status_code == 201, created.text

        async def ready() -> dict[str, Any] | None:
            view: dict[str, Any] = (
                await nufi.get(f"/api/v1/projects/{project}/deployments/llm", headers=world.user)
            ).json()
            return view if view["status"] == "Ready" else None

        view = await until(ready, within=60, every=0.5)
        assert view is not None
        pods = {pod["name"]: pod["node"] for pod in view["pods"]}
        assert len(pods) == 2 and set(pods.values()) <= {node.name for node in LPU_NODES}
        proxy = world.cluster.url + view["urls"]["api_proxy"]
        request = {"model": "mock-lpu-llm", "messages": [{"role": "user", "content": "who are you?"}]}
        async with httpx.AsyncClient(timeout=10.0, headers=DEV_HEADERS) as client:
            served = await _served_by_every_replica(client, proxy, request, project, pods)
            await _heat_until_each_replica_is_hot(client, proxy, request, served, exporters)
            held = {(node, d) for node, devices in served.values() for d in devices}

            async def devices_shown() -> dict[str, Any] | None:
                # The attribution monitoring reads from the exporters, on each pod of the deployment.
                view: dict[str, Any] = (
                    await nufi.get(f"/api/v1/projects/{project}/deployments/llm", headers=world.user)
                ).json()
                shown = {pod["name"]: tuple(pod["devices"]) for pod in view["pods"]}
                return view if shown == {pod: devices for pod, (_, devices) in served.items()} else None

            # Through a Prometheus scrape and a monitoring evaluation: generous, a loaded machine is slow.
            assert await until(devices_shown, within=90.0, every=0.5) is not None
            for node, url in exporters.items():
                for device, (value, pod) in (await _utilization(client, url)).items():
                    if (node, device) not in held:
                        assert pod == "" and value < 5, (node, device, value, pod)
    finally:
        await nufi.delete(f"/api/v1/admin/projects/{project}", headers=world.admin)
