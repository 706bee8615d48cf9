"""Workloads in a running sandbox, through NuFi's API as its users would: an inference deployment on
the LPUs that answers through its Service and heats the devices it holds, one that cannot fit, and
Jupyter labs (a StatefulSet, then a Kubeflow Notebook once the cluster has the CRD) opened through
NuFi. Deleting them leaves nothing NuFi made in the cluster and no process of theirs running.

In a second project, NuFi's accelerator quota (a ResourceQuota): it holds through NuFi and for pods
made with kubectl, a lowered quota keeps a replaced pod out and NuFi says why in the accelerator's
words, and it holds alike for an official type and for the LPU, registered while the sandbox runs.

The tests of this module run in order and share one sandbox and its projects.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from e2e.e2e_sandbox_support import LPU, LPU_REGISTRATION, SandboxRun, bearer, token
from e2e.workloads.workloads_sandbox_support import (
    DEVICE,
    MODEL,
    PROJECT,
    QUOTA_NAME,
    QUOTA_PROJECT,
    UTILIZATION,
    World,
    create_pod,
    created_or_none,
    forbidden_by_quota,
    live_pods,
    lpus_used,
    offer,
    put_quota,
    quota_changes,
    resource_quota,
    served_body,
    utilization,
)
from nufi_sandbox.devcluster.crds import notebooks_crd
from nufi_sandbox.processes import read_proc_stat
from support.jupyter_kernel import run_in_kernel
from support.polling import poll

GPU = "nvidia.com/gpu"
LPU_NODES = {"lpu-node-1", "lpu-node-2"}


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
            lambda: created_or_none(nufi, "/api/v1/admin/devices", LPU_REGISTRATION),
            60,
            every=2.0,
            what="registered",
        )
        assert registered["id"] == "lpu"
        created = nufi.post("/api/v1/admin/projects", json={"name": PROJECT, "members": []})
        assert created.status_code == 201, created.text
        yield World(sandbox, nufi, user, admin, kube, {})


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
        readings = {node: utilization(exporters[node]) for node in {node for node, _ in held}}
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
    # Named as the sandbox registered the type, never by its resource key.
    assert pending["reason"].startswith(f"no node has 4 free {LPU_REGISTRATION['name']}: "), pending["reason"]
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


def test_a_projects_lpu_quota_holds_through_nufi_and_for_pods_made_with_kubectl(world: World) -> None:
    # The LPU type was registered by this module's fixture, in the running sandbox: no restart since.
    created = world.nufi.post("/api/v1/admin/projects", json={"name": QUOTA_PROJECT, "members": ["user"]})
    assert created.status_code == 201, created.text
    written = put_quota(world.nufi, QUOTA_PROJECT, {"devices": {"lpu": 2}})
    assert written["devices"] == [{"device_type": "lpu", "resource_key": LPU, "hard": 2, "used": 0}]
    base = f"/api/v1/projects/{QUOTA_PROJECT}"
    body = {**served_body(world.sandbox.state["images"]["inference"]), "replicas": 2}
    deployed = world.nufi.post(f"{base}/deployments", json=body, headers=world.user)
    assert deployed.status_code == 201, deployed.text
    assert world.until_status("deployments", "served", "Ready", QUOTA_PROJECT)["ready_replicas"] == 2

    # What NuFi shows the member is what the cluster's quota controller counts.
    poll(lambda: lpus_used(world.kube, QUOTA_PROJECT) == "2", 10, 0.2, "the quota counting 2 LPUs")
    lpu = offer(world.nufi, QUOTA_PROJECT, "lpu", world.user)
    assert (lpu["quota"], lpu["in_use"]) == (2, 2), lpu
    assert resource_quota(world.kube, QUOTA_PROJECT)["status"]["hard"] == {f"requests.{LPU}": "2"}
    read = world.nufi.get(f"{base}/quotas", headers=world.user)
    assert read.status_code == 200 and read.json()["devices"][0]["used"] == 2, read.text

    third = world.nufi.post(
        f"{base}/deployments", json={**body, "name": "third", "replicas": 1}, headers=world.user
    )
    assert third.status_code == 422, third.text
    problem = third.json()
    assert (problem["code"], problem["field"], problem["quota"]) == (
        "quota.exceeded",
        "accelerator.count",
        QUOTA_NAME,
    )
    # Nothing left: said in a sentence of its own, naming neither the quota's object nor the key.
    assert "Its quota of 2 is used up." in problem["detail"], problem
    assert QUOTA_NAME not in problem["detail"] and LPU not in problem["detail"], problem
    scaled = world.nufi.patch(f"{base}/deployments/served", json={"replicas": 3}, headers=world.user)
    assert (scaled.status_code, scaled.json()["field"]) == (422, "replicas"), scaled.text

    # Past NuFi, straight to the Kubernetes API as kubectl goes: quota admission refuses the pod.
    image = world.sandbox.state["images"]["inference"]
    refused = create_pod(world.kube, QUOTA_PROJECT, "extra", image, {LPU: "1"})
    assert refused.status_code == 403, refused.text
    status = refused.json()
    assert (status["kind"], status["reason"]) == ("Status", "Forbidden"), status
    assert status["message"] == forbidden_by_quota("extra", LPU, requested=1, used=2, limited=2)
    assert world.kube.get(f"/api/v1/namespaces/{QUOTA_PROJECT}/pods/extra").status_code == 404


def test_a_lowered_quota_keeps_a_replacement_out_in_accelerator_words_until_raised(world: World) -> None:
    put_quota(world.nufi, QUOTA_PROJECT, {"devices": {"lpu": 1}})
    (gone, kept) = live_pods(world.kube, QUOTA_PROJECT)
    deleted = world.kube.delete(f"/api/v1/namespaces/{QUOTA_PROJECT}/pods/{gone['metadata']['name']}")
    assert deleted.status_code == 200, deleted.text

    def said() -> dict[str, Any] | None:
        body = world.workload("deployments", "served", QUOTA_PROJECT)
        return body if (body.get("reason_message") or {}).get("code") == "workload.quota_exceeded" else None

    waiting = poll(said, 10, 0.2, "the deployment saying the quota keeps its pod out")
    # One replica still serves: Degraded, not Pending; the reason in the accelerator's words, with
    # what was in use when the cluster refused (the deleted pod may still have been counted then).
    assert waiting["status"] == "Degraded" and waiting["ready_replicas"] == 1, waiting
    assert waiting["reason"].startswith("project quota: "), waiting["reason"]
    assert " limited to 1, " in waiting["reason"] and LPU not in waiting["reason"], waiting["reason"]
    assert [pod["metadata"]["name"] for pod in live_pods(world.kube, QUOTA_PROJECT)] == [
        kept["metadata"]["name"]
    ]
    sets = world.kube.get(f"/apis/apps/v1/namespaces/{QUOTA_PROJECT}/replicasets").json()["items"]
    (failure,) = [c for c in sets[0]["status"]["conditions"] if c["type"] == "ReplicaFailure"]
    assert failure["reason"] == "FailedCreate" and f"exceeded quota: {QUOTA_NAME}" in failure["message"]

    put_quota(world.nufi, QUOTA_PROJECT, {"devices": {"lpu": 2}})
    raised = time.monotonic()
    poll(lambda: len(live_pods(world.kube, QUOTA_PROJECT)) == 2, 5, 0.1, "the replacement pod created")
    came_back = time.monotonic() - raised
    world.until_status("deployments", "served", "Ready", QUOTA_PROJECT)
    assert came_back <= 5, came_back


def test_an_official_types_quota_holds_alike_and_every_change_is_audited(world: World) -> None:
    # nvidia-gpu is shipped with NuFi; the sandbox's gpu-node-1 has 8 of them.
    written = put_quota(world.nufi, QUOTA_PROJECT, {"devices": {"lpu": 2, "nvidia-gpu": 1}})
    assert [(d["device_type"], d["hard"]) for d in written["devices"]] == [("lpu", 2), ("nvidia-gpu", 1)]
    gpu = offer(world.nufi, QUOTA_PROJECT, "nvidia-gpu", world.user)
    assert (gpu["quota"], gpu["in_use"], gpu["free"]) == (1, 0, 8), gpu
    body = {
        **served_body(world.sandbox.state["images"]["inference"]),
        "name": "gpus",
        "accelerator": {"device_type": "nvidia-gpu", "count": 2},
    }
    refused = world.nufi.post(f"/api/v1/projects/{QUOTA_PROJECT}/deployments", json=body, headers=world.user)
    assert refused.status_code == 422, refused.text
    assert (refused.json()["code"], refused.json()["field"]) == ("quota.exceeded", "accelerator.count")
    image = world.sandbox.state["images"]["inference"]
    direct = create_pod(world.kube, QUOTA_PROJECT, "gpus", image, {GPU: "2"})
    assert direct.status_code == 403, direct.text
    assert direct.json()["message"] == forbidden_by_quota("gpus", GPU, requested=2, used=0, limited=1)

    changes = quota_changes(world.nufi, QUOTA_PROJECT)
    assert [change["after"]["devices"] for change in changes] == [
        {"lpu": 2},
        {"lpu": 1},
        {"lpu": 2},
        {"lpu": 2, "nvidia-gpu": 1},
    ]
    assert {change["actor"] for change in changes} == {"admin"}
    assert world.nufi.delete(f"/api/v1/admin/projects/{QUOTA_PROJECT}").status_code in (200, 204)
    pods = f"/api/v1/namespaces/{QUOTA_PROJECT}/pods"
    poll(lambda: not world.kube.get(pods).json()["items"], 30, 0.2, "the quota project's pods gone")


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
        for sample in UTILIZATION.finditer(exporter)
        if 'pod="notes-0"' in sample["labels"] and (device := DEVICE.search(sample["labels"]))
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
        lambda: created_or_none(world.nufi, f"/api/v1/projects/{PROJECT}/labs", request), 30, 0.5, "created"
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
