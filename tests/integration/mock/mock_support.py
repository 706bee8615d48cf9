"""Starting the nufi-mock commands and a dev cluster for the mock LPU's integration tests."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess, free_port
from support.dev_cluster import prepared_cluster

LPU = "hyperaccel.ai/lpu"


def nufi_mock(name: str, args: Sequence[str | Path], log_dir: Path) -> ManagedProcess:
    """`nufi-mock <args>` as the installed command runs it, logging to ``<log_dir>/<name>.log``."""
    return ManagedProcess(name, [sys.executable, "-m", "nufi_mock", *args], log_dir=log_dir)


def start_plugin(plugin_dir: Path, log_dir: Path, *extra: str) -> ManagedProcess:
    return nufi_mock(
        "device-plugin",
        ["device-plugin", "--dir", plugin_dir, "--log-format", "json", "--watch-interval", "0.2", *extra],
        log_dir,
    ).start()


def launch_exporter(name: str, log_dir: Path, *args: str) -> tuple[ManagedProcess, str]:
    """An exporter on a free loopback port, started but maybe not listening yet; returns its address."""
    port = free_port()
    process = nufi_mock(
        name,
        ["exporter", "--host", "127.0.0.1", "--port", str(port), "--log-format", "json", *args],
        log_dir,
    ).start()
    return process, f"127.0.0.1:{port}"


def wait_answering(process: ManagedProcess, address: str) -> None:
    process.wait_ready(
        lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
        15.0,
        "answering /healthz",
    )


def log_events(process: ManagedProcess, event: str) -> list[dict[str, Any]]:
    """The JSON log lines of ``process`` whose event is ``event``."""
    found = []
    for line in process.log_path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("event") == event:
            found.append(record)
    return found


def start_cluster(state_dir: Path, nodes_yaml: str) -> DevClusterProcess:
    state_dir.mkdir(parents=True, exist_ok=True)
    return prepared_cluster(state_dir, nodes_yaml).start()


def pod_asking(name: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "containers": [
                {"name": "app", "image": "busybox:1.36", "resources": {"limits": {LPU: str(count)}}}
            ]
        },
    }


class Kube:
    """The few dev cluster calls these tests make, over its real REST API."""

    def __init__(self, cluster: DevClusterProcess) -> None:
        self.url = cluster.url
        self.headers = cluster.headers

    def node_status(self, node: str) -> dict[str, Any]:
        response = httpx.get(f"{self.url}/api/v1/nodes/{node}", headers=self.headers, timeout=5.0)
        response.raise_for_status()
        status: dict[str, Any] = response.json()["status"]
        return status

    def lpu_counts(self, node: str) -> tuple[str | None, str | None]:
        status = self.node_status(node)
        return status["capacity"].get(LPU), status["allocatable"].get(LPU)

    def create_pod(self, body: dict[str, Any], namespace: str = "default") -> None:
        response = httpx.post(
            f"{self.url}/api/v1/namespaces/{namespace}/pods", json=body, headers=self.headers, timeout=5.0
        )
        assert response.status_code == 201, response.text

    def pod(self, name: str, namespace: str = "default") -> dict[str, Any]:
        response = httpx.get(
            f"{self.url}/api/v1/namespaces/{namespace}/pods/{name}", headers=self.headers, timeout=5.0
        )
        response.raise_for_status()
        pod: dict[str, Any] = response.json()
        return pod

    def assert_running(self, name: str, node: str) -> None:
        pod = self.pod(name)
        assert pod["spec"].get("nodeName") == node, pod["spec"].get("nodeName")
        assert pod["status"].get("phase") == "Running", pod["status"]
