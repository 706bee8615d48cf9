"""Workloads in a running sandbox, through NuFi's API as its users would: an inference deployment on
the LPUs that answers through its Service and heats the devices it holds, one that cannot fit, and
Jupyter labs (a StatefulSet, then a Kubeflow Notebook once the cluster has the CRD) opened through
NuFi. Deleting them leaves nothing NuFi made in the cluster and no process of theirs running.

The tests of this module run in order and share one sandbox and one project.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from e2e.e2e_sandbox_support import LPU, LPU_REGISTRATION, SandboxRun, all_stats, bearer, token
from nufi_sandbox.devcluster.crds import notebooks_crd
from nufi_sandbox.processes import read_proc_stat
from support.jupyter_kernel import run_in_kernel
from support.polling import poll

PROJECT = "team-lpu"
LPU_NODES = {"lpu-node-1", "lpu-node-2"}
MODEL = "mock-lpu-llm"
READY_WITHIN = 120.0
_UTILIZATION = re.compile(r"^lpu_utilization_percent\{(?P<labels>[^}]*)\} (?P<value>\S+)$", re.MULTILINE)
_DEVICE = re.compile(r'device="([^"]+)"')


@dataclass
class World:
    sandbox: SandboxRun
    nufi: httpx.Client  # NuFi as the admin
    user: dict[str, str]  # headers of a signed-in user who is not a member of the project
    admin: dict[str, str]
    kube: httpx.Client  # the Kubernetes API with the sandbox's kubeconfig credentials
    # What the tests learn on the way.
    served: dict[str, tuple[str, tuple[str, ...]]]  # pod -> (node, devices)

    def workload(self, kind: str, name: str) -> dict[str, Any]:
        response = self.nufi.get(f"/api/v1/projects/{PROJECT}/{kind}/{name}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def until_status(self, kind: str, name: str, status: str) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            body = self.workload(kind, name)
            return body if body["status"] == status else None

        return poll(reached, READY_WITHIN, every=0.5, what=f"{kind}/{name} {status}")

    def pod_processes(self) -> list[int]:
        """Processes the dev cluster's kubelet runs for pods (every descendant of the dev cluster)."""
        (cluster,) = [pid for pid in self.sandbox.children if "nufi_sandbox.devcluster" in _cmdline(pid)]
        stats = all_stats()
        found: set[int] = set()
        parents = {cluster}
        while parents:
            children = {s.pid for s in stats if s.ppid in parents} - found
            found |= children
            parents = children
        return sorted(found)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture(scope="module")
def world(sandbox: SandboxRun) -> Iterator[World]:
    state = sandbox.state
    admin = bearer(token(state, "admin", "admin"))
    user = bearer(token(state, "user", "user"))
    kubeconfig = yaml.safe_load(Path(state["kubeconfig"]).read_text())
    kube_token = kubeconfig["users"][0]["user"]["token"]
    with (
        httpx.Client(base_url=state["nufi_url"], headers=admin, timeout=30.0) as nufi,
        httpx.Client(base_url=state["kube_api_url"], headers=bearer(kube_token), timeout=30.0) as kube,
    ):
        # The LPU nodes get their devices from the mock device plugins a moment after the sandbox is up.
        registered = poll(
            lambda: _created(nufi, "/api/v1/admin/devices", LPU_REGISTRATION),
            60,
            every=2.0,
            what="registered",
        )
        assert registered["id"] == "lpu"
        created = nufi.post("/api/v1/admin/projects", json={"name": PROJECT, "members": []})
        assert created.status_code == 201, created.text
        yield World(sandbox, nufi, user, admin, kube, {})


def _created(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The created object, or None while the server refuses to create it (the world is not there yet)."""
    response = client.post(path, json=body)
    if response.status_code != 201:
        return None
    created: dict[str, Any] = response.json()
    return created


def _utilization(url: str) -> dict[str, float]:
    text = httpx.get(url, timeout=10).text
    values = {}
    for sample in _UTILIZATION.finditer(text):
        device = _DEVICE.search(sample["labels"])
        if device:
            values[device.group(1)] = float(sample["value"])
    return values


def test_an_lpu_deployment_runs_on_the_lpu_nodes_and_answers_through_its_service(world: World) -> None:
    images = world.sandbox.state["images"]
    created = world.nufi.post(
        f"/api/v1/projects/{PROJECT}/deployments",
        json={
            "name": "llm",
            "image": images["inference"],
            # Saturated by two requests a second: the test asserts the heat, not this machine's speed.
            "args": ["inference", "--model", MODEL, "--saturation-rps", "2"],
            "accelerator": {"device_type": "lpu", "count": 1},
            "replicas": 2,
            "port": 8000,
            "readiness_path": "/health",
        },
    )
    assert created.status_code == 201, created.text
    ready = world.until_status("deployments", "llm", "Ready")
    assert ready["ready_replicas"] == 2
    pods = {pod["name"]: pod for pod in ready["pods"]}
    assert len(pods) == 2 and {pod["node"] for pod in pods.values()} <= LPU_NODES

    deployment = world.kube.get(f"/apis/apps/v1/namespaces/{PROJECT}/deployments/llm").json()
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"] == {LPU: "1"}
    assert container["resources"]["requests"] == {LPU: "1"}

    # Through the Service, the way `kubectl proxy` users reach it: the API server's services proxy.
    path = f"/api/v1/namespaces/{PROJECT}/services/llm:8000/proxy/v1/completions"
    answered: Counter[str] = Counter()
    for number in range(100):
        response = world.kube.post(
            path, json={"model": MODEL, "prompt": f"request {number}", "max_tokens": 4}
        )
        assert response.status_code == 200, response.text
        served = response.json()["nufi"]
        answered[served["pod"]] += 1
        world.served[served["pod"]] = (served["node"], tuple(served["devices"]))
    assert set(answered) == set(pods), answered
    for pod, (node, devices) in world.served.items():
        assert node == pods[pod]["node"] and len(devices) == 1, world.served


def test_its_traffic_heats_exactly_the_devices_its_pods_hold(world: World) -> None:
    exporters = world.sandbox.state["exporters"]
    held = {(node, device) for node, devices in world.served.values() for device in devices}
    path = f"/api/v1/namespaces/{PROJECT}/services/llm:8000/proxy/v1/chat/completions"
    body = {"model": MODEL, "messages": [{"role": "user", "content": "warm up"}], "max_tokens": 2}

    def hot() -> dict[str, dict[str, float]] | None:
        for _ in range(40):
            assert world.kube.post(path, json=body).status_code == 200
        readings = {node: _utilization(exporters[node]) for node in {node for node, _ in held}}
        for node, device in held:
            others = [value for name, value in readings[node].items() if (node, name) not in held]
            if readings[node][device] < 50 or any(value >= readings[node][device] for value in others):
                return None
        return readings

    poll(hot, 90, every=0.0, what="hot on the held devices only")


def test_a_deployment_that_cannot_fit_now_is_pending_in_the_accelerators_words(world: World) -> None:
    # Each sandbox LPU node has 4 devices and `llm` holds one on each: 4 per pod fits no node now.
    images = world.sandbox.state["images"]
    request = {
        "name": "big",
        "image": images["inference"],
        "args": ["inference"],
        "accelerator": {"device_type": "lpu", "count": 4},
    }
    created = world.nufi.post(f"/api/v1/projects/{PROJECT}/deployments", json=request)
    assert created.status_code == 201, created.text
    pending = world.until_status("deployments", "big", "Pending")
    assert pending["reason"].startswith(f"no node has 4 free {LPU}: "), pending["reason"]
    for node in LPU_NODES:
        assert f"{node} has 3" in pending["reason"], pending["reason"]
    # Five per pod is more than any LPU node has at all: refused before anything is written.
    too_many = world.nufi.post(
        f"/api/v1/projects/{PROJECT}/deployments",
        json={**request, "name": "huge", "accelerator": {"device_type": "lpu", "count": 5}},
    )
    assert too_many.status_code == 422 and too_many.json()["field"] == "accelerator.count", too_many.text
    assert world.kube.get(f"/apis/apps/v1/namespaces/{PROJECT}/deployments/huge").status_code == 404
    assert world.nufi.delete(f"/api/v1/projects/{PROJECT}/deployments/big").status_code == 204


def _lab_answers(world: World, url: str, headers: dict[str, str]) -> str:
    """Runs code in a new kernel of the lab at NuFi path `url` and returns what it printed."""
    base = world.sandbox.state["nufi_url"]
    with httpx.Client(base_url=base + url, headers=headers, timeout=30.0) as lab:
        status = lab.get("api/status")
        assert status.status_code == 200, status.text
        page = lab.get("lab")
        assert page.status_code == 200 and "JupyterLab" in page.text, page.status_code
        xsrf = lab.cookies["_xsrf"]
        kernel = lab.post("api/kernels", json={"name": "python3"}, headers={"X-XSRFToken": xsrf})
        assert kernel.status_code == 201, kernel.text
        ws_url = base.replace("http://", "ws://") + f"{url}api/kernels/{kernel.json()['id']}/channels"
        cookie = "; ".join(f"{name}={value}" for name, value in lab.cookies.items())
        printed = asyncio.run(
            run_in_kernel(
                ws_url,
                "import os; print(os.environ['LPU_VISIBLE_DEVICES'])",
                headers={**headers, "Cookie": cookie},
            )
        )
        lab.delete(f"api/kernels/{kernel.json()['id']}", headers={"X-XSRFToken": xsrf})
    return printed.strip()


def test_a_jupyter_lab_with_an_lpu_opens_through_nufi_and_its_kernel_sees_the_device(world: World) -> None:
    created = world.nufi.post(
        f"/api/v1/projects/{PROJECT}/labs",
        json={
            "name": "notes",
            "kind": "jupyter",
            "accelerator": {"device_type": "lpu", "count": 1},
            "storage_gib": 1,
        },
    )
    assert created.status_code == 201, created.text
    assert created.json()["backend"] == "statefulset"
    lab = world.until_status("labs", "notes", "Ready")
    assert lab["url"] == f"/labs/{PROJECT}/notes/"
    pod = world.kube.get(f"/api/v1/namespaces/{PROJECT}/pods/notes-0").json()
    assert pod["spec"]["nodeName"] in LPU_NODES
    devices = _lab_answers(world, lab["url"], world.admin)
    # The device its kernel sees is the one the node's exporter attributes to the lab's pod.
    exporter = httpx.get(world.sandbox.state["exporters"][pod["spec"]["nodeName"]], timeout=10).text
    attributed = {
        device.group(1)
        for sample in _UTILIZATION.finditer(exporter)
        if 'pod="notes-0"' in sample["labels"] and (device := _DEVICE.search(sample["labels"]))
    }
    assert attributed == {devices}, (attributed, devices)
    # Not a member of the project: refused at NuFi's door.
    refused = httpx.get(world.sandbox.state["nufi_url"] + lab["url"], headers=world.user, timeout=10)
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")


def test_with_the_notebook_crd_a_lab_is_a_kubeflow_notebook(world: World) -> None:
    crd = world.kube.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=notebooks_crd())
    assert crd.status_code == 201, crd.text
    request = {
        "name": "kf",
        "kind": "jupyter",
        "accelerator": {"device_type": "lpu", "count": 1},
        "storage_gib": 1,
    }
    # The CRD is served as soon as it is created; NuFi notices it on its next lab.
    created = poll(
        lambda: _created(world.nufi, f"/api/v1/projects/{PROJECT}/labs", request), 30, 0.5, "created"
    )
    assert created["backend"] == "notebook"
    lab = world.until_status("labs", "kf", "Ready")
    notebook = world.kube.get(f"/apis/kubeflow.org/v1/namespaces/{PROJECT}/notebooks/kf")
    assert notebook.status_code == 200
    assert notebook.json()["status"]["readyReplicas"] == 1
    # Kubeflow's controller serves the notebook under its own path, and NuFi's link leads there.
    served_at = f"/notebook/{PROJECT}/kf/"
    for link in {lab["url"], f"/labs/{PROJECT}/kf/"}:
        opened = httpx.get(
            world.sandbox.state["nufi_url"] + link, headers=world.admin, timeout=10, follow_redirects=True
        )
        assert opened.status_code == 200 and "JupyterLab" in opened.text, (link, opened.status_code)
        assert opened.url.path.startswith(served_at), opened.url
    assert _lab_answers(world, served_at, world.admin)


def test_deleting_everything_leaves_nothing_nufi_made_and_no_process_running(world: World) -> None:
    assert world.pod_processes(), "the pods ran no process"
    for kind, name in (("deployments", "llm"), ("labs", "notes"), ("labs", "kf")):
        response = world.nufi.delete(f"/api/v1/projects/{PROJECT}/{kind}/{name}")
        assert response.status_code == 204, response.text
    managed = {"labelSelector": "app.kubernetes.io/managed-by=nufi"}
    left = {
        path: world.kube.get(f"{path}", params=managed).json()["items"]
        for path in (
            f"/apis/apps/v1/namespaces/{PROJECT}/deployments",
            f"/apis/apps/v1/namespaces/{PROJECT}/statefulsets",
            f"/api/v1/namespaces/{PROJECT}/services",
            f"/api/v1/namespaces/{PROJECT}/persistentvolumeclaims",
            f"/apis/kubeflow.org/v1/namespaces/{PROJECT}/notebooks",
        )
    }
    assert not any(left.values()), left

    def pods_gone() -> bool:
        return not world.kube.get(f"/api/v1/namespaces/{PROJECT}/pods").json()["items"]

    poll(pods_gone, 60, 0.5, "without pods")
    poll(lambda: not world.pod_processes(), 30, 0.5, "without pod processes")
    deleted = world.nufi.delete(f"/api/v1/admin/projects/{PROJECT}")
    assert deleted.status_code in (200, 204), deleted.text
    assert read_proc_stat(world.sandbox.process.pid) is not None  # the sandbox itself runs on
