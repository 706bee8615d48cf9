"""A dev cluster process with a runtime map that runs `echo_backend.py` for the image ECHO_IMAGE."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from kubernetes_asyncio import client

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.devcluster.runtime.map import ImageEntry, NodeEntry, RuntimeMap
from support.dev_cluster import DEV_HEADERS, dev_cluster

ECHO_IMAGE = "registry.nufi.test/echo:1"
MISSING_IMAGE = "registry.nufi.test/missing:1"
BACKEND = Path(__file__).with_name("echo_backend.py")
NODES = textwrap.dedent("""\
    nodes:
      - name: cpu-1
      - name: lpu-1
        labels: {accelerator: lpu}
    """)


@contextmanager
def echo_cluster(**options: Any) -> Iterator[DevClusterProcess]:
    """A started dev cluster whose kubelets run `echo_backend.py` for ECHO_IMAGE; stopped and its
    state (pod work dirs, logs, sockets) removed afterwards."""
    runtime_map = RuntimeMap(
        images={
            ECHO_IMAGE: ImageEntry(
                argv=(sys.executable, str(BACKEND), "{port}"),
                env={"FROM_MAP": "map {pod} {namespace}", "SEEN_WORKDIR": "{workdir}"},
            ),
            MISSING_IMAGE: ImageEntry(argv=("/nonexistent/nufi-test-program",)),
        },
        nodes={"lpu-1": NodeEntry(env={"FROM_NODE": "node {node}"})},
    )
    with dev_cluster(NODES, prefix="dcp-", runtime_map=runtime_map, **options) as cluster:
        yield cluster


def echo_container(
    *,
    env: dict[str, str] | None = None,
    probe: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "echo",
        "image": ECHO_IMAGE,
        "ports": [{"name": "http", "containerPort": 8080}],
        "env": [{"name": k, "value": v} for k, v in (env or {}).items()],
        **extra,
    }
    if probe is not None:
        container["readinessProbe"] = probe
    return container


HTTP_PROBE = {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 1, "failureThreshold": 1}


def workdir(cluster: DevClusterProcess, pod: Any, container: str = "echo") -> Path:
    meta = pod.metadata
    return cluster.state_dir / "pods" / f"{meta.namespace}_{meta.name}_{meta.uid}" / container


def started_info(cluster: DevClusterProcess, pod: Any, container: str = "echo") -> dict[str, Any] | None:
    """What the backend wrote at start (pid, argv, env), once it has."""
    path = workdir(cluster, pod, container) / "env.json"
    try:
        loaded: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return loaded


async def pod_when(v1: client.CoreV1Api, name: str, namespace: str, condition: str) -> Any:
    """The pod once its condition `condition` is True, else None (for `until`)."""
    current = await v1.read_namespaced_pod(name, namespace)
    found = {c.type: c.status for c in current.status.conditions or []}
    return current if found.get(condition) == "True" else None


def proxy_url(cluster: DevClusterProcess, namespace: str, service: str, path: str = "") -> str:
    return f"{cluster.url}/api/v1/namespaces/{namespace}/services/{service}/proxy/{path}"


def token_client() -> httpx.AsyncClient:
    """A client that authenticates like the product does, with the kubeconfig's bearer token."""
    return httpx.AsyncClient(headers=DEV_HEADERS, timeout=10.0)
