"""The sandbox's wiring end to end, without NuFi: a dev cluster given the runtime map the sandbox
writes, the mock device plugin and the node's exporter. A pod of the inference image asking for two
LPUs runs as a local process; answers reached through the dev cluster's services proxy name the pod,
the node and the devices the plugin allocated, and its traffic heats exactly those devices."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from integration.mock.mock_support import start_plugin, wait_answering
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.sandbox.images import INFERENCE
from nufi_sandbox.sandbox.runtime_map import sandbox_runtime_map
from nufi_sandbox.sandbox.topology import NODES, nodes_yaml
from support.dev_cluster import DEV_HEADERS, dev_cluster
from support.polling import until

NODE = next(node for node in NODES if node.name == "lpu-node-2")
LPU = NODE.resource_key
NAMESPACE = "default"
_SAMPLE = re.compile(r"^lpu_utilization_percent\{(?P<labels>[^}]*)\} (?P<value>\S+)$", re.MULTILINE)
_DEVICE = re.compile(r'device="([^"]+)"')


@dataclass
class World:
    cluster: DevClusterProcess
    exporter_url: str


@pytest.fixture(scope="module")
def world(logs_dir: Path) -> Iterator[World]:
    exporter_port = free_port()
    runtime_map = sandbox_runtime_map((NODE,), {NODE.name: exporter_port})
    with (
        dev_cluster(nodes_yaml((NODE,)), prefix="srt-", runtime_map=runtime_map) as cluster,
        ExitStack() as stack,
    ):
        plugin = start_plugin(cluster.device_plugin_dir(NODE.name), logs_dir)
        stack.callback(plugin.stop)
        exporter = ManagedProcess(
            "exporter-lpu-node-2",
            [
                *(sys.executable, "-m", "nufi_mock", "exporter", "--profile", "lpu", "--nodes", NODE.name),
                *("--host", "127.0.0.1", "--port", str(exporter_port), "--interval", "0.2"),
                *("--pod-resources-socket", f"{NODE.name}={cluster.pod_resources_socket(NODE.name)}"),
            ],
            log_dir=logs_dir,
        ).start()
        stack.callback(exporter.stop)
        wait_answering(exporter, f"127.0.0.1:{exporter_port}")
        yield World(cluster, f"http://127.0.0.1:{exporter_port}")


def inference_pod(name: str) -> dict[str, Any]:
    args = ["inference", "--load-window", "1.5", "--saturation-rps", "5", "--report-interval", "0.2"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "containers": [
                {
                    "name": "server",
                    "image": INFERENCE,
                    "args": args,
                    "ports": [{"name": "http", "containerPort": 8000}],
                    "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 1},
                    "resources": {"limits": {LPU: "2"}},
                }
            ]
        },
    }


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    }


async def utilization(client: httpx.AsyncClient, url: str) -> dict[str, tuple[float, str]]:
    """Device -> (utilization, pod label) at the exporter."""
    found = {}
    for match in _SAMPLE.finditer((await client.get(f"{url}/metrics")).text):
        device = _DEVICE.search(match["labels"])
        pod = re.search(r'pod="([^"]*)"', match["labels"])
        assert device is not None
        found[device.group(1)] = (float(match["value"]), pod.group(1) if pod else "")
    return found


async def test_an_inference_pod_runs_answers_by_name_and_heats_its_own_devices(world: World) -> None:
    name = "infer"
    api = f"{world.cluster.url}/api/v1/namespaces/{NAMESPACE}"
    proxy = f"{api}/services/{name}:http/proxy"
    headers = DEV_HEADERS
    async with httpx.AsyncClient(timeout=10.0, headers=headers) as client:
        for kind, body in (("pods", inference_pod(name)), ("services", service(name))):
            created = await client.post(f"{api}/{kind}", json=body)
            assert created.status_code == 201, created.text

        async def ready() -> dict[str, Any]:
            pod: dict[str, Any] = (await client.get(f"{api}/pods/{name}")).json()
            conditions = pod["status"].get("conditions") or []
            return pod if any(c["type"] == "Ready" and c["status"] == "True" for c in conditions) else {}

        pod = await until(ready, within=30.0)
        assert pod["spec"]["nodeName"] == NODE.name
        body = {"model": "mock-lpu-llm", "messages": [{"role": "user", "content": "who are you?"}]}
        answer = await client.post(f"{proxy}/v1/chat/completions", json=body)
        assert answer.status_code == 200, answer.text
        served = answer.json()["nufi"]
        assert served["pod"] == name and served["namespace"] == NAMESPACE and served["node"] == NODE.name
        held = set(served["devices"])
        assert len(held) == 2 and held <= {f"lpu{i}" for i in range(NODE.devices)}
        assert answer.headers["x-served-by-devices"] == ",".join(served["devices"])
        assert answer.json()["choices"][0]["message"]["content"].startswith(f"Served by pod {name} on node")

        stop = asyncio.Event()

        async def traffic() -> None:
            # Bounded: at most 60 s of about 10 requests a second, twice the saturating rate.
            for _ in range(600):
                if stop.is_set():
                    return
                await client.post(f"{proxy}/v1/chat/completions", json=body)
                await asyncio.sleep(0.1)

        sending = asyncio.create_task(traffic())
        try:

            async def hot() -> dict[str, tuple[float, str]]:
                values = await utilization(client, world.exporter_url)
                return values if all(values[d][0] > 60 and values[d][1] == name for d in held) else {}

            values = await until(hot, within=30.0, every=0.2)
        finally:
            stop.set()
            await sending
        idle = {device: value for device, value in values.items() if device not in held}
        assert len(idle) == NODE.devices - 2
        assert all(value < 5 and pod_label == "" for value, pod_label in idle.values()), values
