"""Labs as the sandbox runs them: Kubeflow Notebooks of the upstream Jupyter and code-server images,
with the args NuFi gives them, in a dev cluster handed the sandbox's runtime map. The notebook
controller's pod runs JupyterLab (or code-server) as a local process holding an LPU, reached through
the dev cluster's services proxy under the controller's NB_PREFIX."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from integration.mock.mock_support import start_plugin
from nufi.workloads.labs.model import PROFILES, LabKind
from nufi_sandbox import code_server
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import free_port
from nufi_sandbox.sandbox.images import JUPYTER, VSCODE
from nufi_sandbox.sandbox.runtime_map import sandbox_runtime_map
from nufi_sandbox.sandbox.topology import NODES, nodes_yaml
from support.dev_cluster import DEV_HEADERS, dev_cluster
from support.polling import until

NODE = next(node for node in NODES if node.name == "lpu-node-1")
NAMESPACE = "default"
IMAGES: dict[LabKind, str] = {"jupyter": JUPYTER, "vscode": VSCODE}


@dataclass
class World:
    cluster: DevClusterProcess


@pytest.fixture(scope="module")
def world(logs_dir: Path) -> Iterator[World]:
    code_server.binary()  # a VS Code notebook runs it: when missing, the error names `make setup`
    runtime_map = sandbox_runtime_map((NODE,), {NODE.name: free_port()}, sys.executable)
    with dev_cluster(nodes_yaml((NODE,)), prefix="srl-", runtime_map=runtime_map) as cluster:
        plugin = start_plugin(cluster.device_plugin_dir(NODE.name), logs_dir)
        try:
            cluster.install_notebooks_crd()
            yield World(cluster)
        finally:
            plugin.stop()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=15.0, headers=DEV_HEADERS) as http:
        yield http


def notebook(name: str, kind: LabKind) -> dict[str, Any]:
    profile = PROFILES[kind]
    health = f"/notebook/{NAMESPACE}/{name}/api" if profile.serves_prefix else "/healthz"
    container = {
        "name": name,
        "image": IMAGES[kind],
        "args": profile.args(),
        "env": [{"name": name, "value": value} for name, value in profile.env],
        "ports": [{"name": "notebook-port", "containerPort": profile.port}],
        "resources": {"limits": {NODE.resource_key: "1"}, "requests": {NODE.resource_key: "1"}},
        "readinessProbe": {"httpGet": {"path": health, "port": "notebook-port"}, "periodSeconds": 1},
    }
    annotations = {} if profile.serves_prefix else {"notebooks.kubeflow.org/http-rewrite-uri": "/"}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "Notebook",
        "metadata": {"name": name, "annotations": annotations},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }


async def started(world: World, client: httpx.AsyncClient, name: str, kind: LabKind) -> str:
    """Create the notebook, wait for its pod to be ready; return its services-proxy base URL."""
    api = world.cluster.url
    created = await client.post(
        f"{api}/apis/kubeflow.org/v1/namespaces/{NAMESPACE}/notebooks", json=notebook(name, kind)
    )
    assert created.status_code == 201, created.text

    async def ready() -> dict[str, Any]:
        response = await client.get(f"{api}/api/v1/namespaces/{NAMESPACE}/pods/{name}-0")
        if response.status_code != 200:
            return {}
        pod: dict[str, Any] = response.json()
        conditions = pod["status"].get("conditions") or []
        return pod if any(c["type"] == "Ready" and c["status"] == "True" for c in conditions) else {}

    pod = await until(ready, within=60.0, every=0.5)
    assert pod["spec"]["nodeName"] == NODE.name
    return f"{api}/api/v1/namespaces/{NAMESPACE}/services/{name}:http-{name}/proxy"


async def test_a_jupyter_notebook_serves_jupyterlab_under_the_controllers_prefix(
    world: World, client: httpx.AsyncClient
) -> None:
    proxy = await started(world, client, "lab", "jupyter")
    prefix = f"/notebook/{NAMESPACE}/lab/"
    status = await client.get(f"{proxy}{prefix}api/status")
    assert status.status_code == 200, status.text
    assert "started" in status.json()
    lab = await client.get(f"{proxy}{prefix}lab")
    assert lab.status_code == 200 and "JupyterLab" in lab.text


async def test_a_vscode_notebook_serves_code_server_at_the_rewritten_root(
    world: World, client: httpx.AsyncClient
) -> None:
    proxy = await started(world, client, "code", "vscode")
    root = await client.get(f"{proxy}/")
    # code-server answers its root with a relative redirect to the folder it opens: the pod's work dir.
    assert root.status_code == 302, root.text
    location = root.headers["location"]
    assert location.startswith("./?folder=")
    page = await client.get(f"{proxy}/{location.removeprefix('./')}")
    assert page.status_code == 200 and "workbench" in page.text
    environ = _environ_of(name="code-0")
    assert environ["LPU_VISIBLE_DEVICES"].startswith("lpu")  # the LPU the device plugin allocated
    assert parse_qs(urlsplit(location).query)["folder"] == [environ["HOME"]]
    assert environ["EXTENSIONS_GALLERY"] == dict(PROFILES["vscode"].env)["EXTENSIONS_GALLERY"]


def _environ_of(*, name: str) -> dict[str, str]:
    """The environment of the pod's code-server (a process with the pod's name and namespace)."""
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "environ").read_bytes().decode().split("\0") if entry.name.isdigit() else []
        except OSError:
            continue
        environ = dict(word.split("=", 1) for word in words if "=" in word)
        mine = environ.get("POD_NAME") == name and environ.get("POD_NAMESPACE") == NAMESPACE
        if mine and "LPU_VISIBLE_DEVICES" in environ:
            return environ
    raise AssertionError(f"no code-server process of pod {name}")
