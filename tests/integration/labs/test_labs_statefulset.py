"""Labs where the cluster has no Notebook CRD: NuFi's own StatefulSet, Service and claim, exactly as
built, their status, stop / start, delete, and a create refused half-way leaving nothing behind."""

from __future__ import annotations

from typing import Any

import httpx

from support.polling import present, until
from support.world import LPU, World

from .labs_world import Kube, lab_body

LABELS = {
    "app.kubernetes.io/managed-by": "nufi",
    "nufi.io/workload": "lab",
    "nufi.io/workload-kind": "lab",
    "nufi.io/device-type": "lpu",
}


def _labels(project: str) -> dict[str, str]:
    return {**LABELS, "nufi.io/project": project}


async def _lab_objects(kube: Kube, project: str) -> dict[str, list[str]]:
    base = f"/api/v1/namespaces/{project}"
    return {
        "statefulsets": await kube.names(f"/apis/apps/v1/namespaces/{project}/statefulsets"),
        "services": await kube.names(f"{base}/services"),
        "claims": await kube.names(f"{base}/persistentvolumeclaims"),
        "pods": await kube.names(f"{base}/pods"),
    }


async def _assert_jupyter_statefulset(kube: Kube, project: str) -> None:
    """One replica with two LPUs, served under the lab's prefix, its home on the claim."""
    sts = await kube.get(f"/apis/apps/v1/namespaces/{project}/statefulsets/lab")
    assert sts is not None
    assert sts["metadata"]["labels"] == _labels(project)
    assert sts["spec"]["replicas"] == 1
    assert sts["spec"]["selector"] == {
        "matchLabels": {"nufi.io/workload": "lab", "nufi.io/workload-kind": "lab"}
    }
    template = sts["spec"]["template"]
    assert template["metadata"]["labels"] == _labels(project)
    (container,) = template["spec"]["containers"]
    assert container["resources"] == {"limits": {LPU: "2"}, "requests": {LPU: "2"}}
    assert container["env"] == [{"name": "NB_PREFIX", "value": f"/labs/{project}/lab/"}]
    assert container["ports"] == [{"name": "notebook-port", "containerPort": 8888, "protocol": "TCP"}]
    assert container["readinessProbe"]["httpGet"] == {
        "path": f"/labs/{project}/lab/api",
        "port": "notebook-port",
    }
    assert "--ServerApp.base_url=$(NB_PREFIX)" in container["args"]
    assert container["volumeMounts"] == [{"name": "home", "mountPath": "/home/jovyan"}]
    assert template["spec"]["volumes"] == [
        {"name": "home", "persistentVolumeClaim": {"claimName": "lab-home"}}
    ]


async def test_a_jupyter_lab_is_a_statefulset_service_and_claim(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str
) -> None:
    created = await nufi.post(
        f"/api/v1/projects/{project}/labs",
        json=lab_body(accelerator={"device_type": "lpu", "count": 2}),
        headers=world.user,
    )
    assert created.status_code == 201, created.text
    assert created.headers["location"] == f"/api/v1/projects/{project}/labs/lab"
    view = created.json()
    assert view["backend"] == "statefulset"
    assert view["url"] == f"/labs/{project}/lab/"
    # No lab base domain here: the lab opens in no browser, and says so with a null.
    assert "origin_url" in view and view["origin_url"] is None
    assert view["image"] == "quay.io/jupyter/base-notebook:latest"
    assert view["accelerator"] == {"device_type": "lpu", "resource_key": LPU, "count": 2}
    assert view["storage_gib"] == 5 and view["kind"] == "jupyter"

    await _assert_jupyter_statefulset(kube, project)

    svc = await kube.get(f"/api/v1/namespaces/{project}/services/lab")
    assert svc is not None and svc["metadata"]["labels"] == _labels(project)
    assert svc["spec"]["selector"] == {"nufi.io/workload": "lab", "nufi.io/workload-kind": "lab"}
    (port,) = svc["spec"]["ports"]
    assert (port["port"], port["targetPort"]) == (80, "notebook-port")

    claim = await kube.get(f"/api/v1/namespaces/{project}/persistentvolumeclaims/lab-home")
    assert claim is not None and claim["metadata"]["labels"] == _labels(project)
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert claim["spec"]["resources"] == {"requests": {"storage": "5Gi"}}

    # The dev cluster schedules and readies the pod: the lab becomes Ready, on an LPU node.
    async def ready() -> dict[str, Any] | None:
        lab = (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).json()
        return lab if lab["status"] == "Ready" else None

    await until(ready, within=20)
    pod = await kube.get(f"/api/v1/namespaces/{project}/pods/lab-0")
    assert pod is not None and pod["spec"]["nodeName"] in ("lpu-node-1", "lpu-node-2")
    listed = (await nufi.get(f"/api/v1/projects/{project}/labs", headers=world.user)).json()
    assert [lab["name"] for lab in listed["items"]] == ["lab"]


async def test_a_vscode_lab_serves_at_the_root_on_its_own_port(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str
) -> None:
    created = await nufi.post(
        f"/api/v1/projects/{project}/labs",
        json=lab_body("code", kind="vscode", image="example/code:1"),
        headers=world.user,
    )
    assert created.status_code == 201, created.text
    assert created.json()["image"] == "example/code:1"
    sts = await kube.get(f"/apis/apps/v1/namespaces/{project}/statefulsets/code")
    assert sts is not None
    (container,) = sts["spec"]["template"]["spec"]["containers"]
    assert container["ports"][0]["containerPort"] == 8080
    assert container["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["volumeMounts"] == [{"name": "home", "mountPath": "/home/coder"}]
    # code-server as production runs it: no sign-in of its own, nothing that calls out, no gallery.
    switches = ["--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"]
    assert container["args"][:4] == ["--bind-addr", "0.0.0.0:8080", "--auth", "none"]
    assert set(switches) <= set(container["args"]) and container["args"][-1] == "/home/coder"
    assert {"name": "EXTENSIONS_GALLERY", "value": '{"serviceUrl": ""}'} in container["env"]


async def test_stop_and_start_scale_the_statefulset(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str
) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    ).status_code == 201
    stopped = await nufi.post(f"/api/v1/projects/{project}/labs/lab/stop", headers=world.user)
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["status"] == "Stopped"
    sts = await kube.get(f"/apis/apps/v1/namespaces/{project}/statefulsets/lab")
    assert sts is not None and sts["spec"]["replicas"] == 0
    # The claim stays: stopping keeps the home.
    assert await kube.get(f"/api/v1/namespaces/{project}/persistentvolumeclaims/lab-home") is not None

    async def pod_gone() -> bool:
        return await kube.get(f"/api/v1/namespaces/{project}/pods/lab-0") is None

    await until(pod_gone, within=20)
    started = await nufi.post(f"/api/v1/projects/{project}/labs/lab/start", headers=world.user)
    assert started.status_code == 200 and started.json()["status"] in ("Starting", "Ready")
    sts = await kube.get(f"/apis/apps/v1/namespaces/{project}/statefulsets/lab")
    assert sts is not None and sts["spec"]["replicas"] == 1

    async def ready() -> bool:
        lab = (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).json()
        return bool(lab["status"] == "Ready")

    await until(ready, within=20)


async def test_delete_leaves_nothing(nufi: httpx.AsyncClient, world: World, kube: Kube, project: str) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    ).status_code == 201
    deleted = await nufi.delete(f"/api/v1/projects/{project}/labs/lab", headers=world.user)
    assert deleted.status_code == 204, deleted.text

    async def empty() -> bool:
        return await _lab_objects(kube, project) == {
            "statefulsets": [],
            "services": [],
            "claims": [],
            "pods": [],
        }

    await until(empty, within=20)
    again = await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)
    assert again.status_code == 404
    assert again.headers["content-type"].startswith("application/problem+json")


async def test_a_create_refused_half_way_leaves_nothing_behind(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str
) -> None:
    # Someone's Service already has the lab's name: the StatefulSet is written first, then the
    # Service is refused, and the StatefulSet must go again (its pod, if it got one, terminates).
    await kube.create(
        f"/api/v1/namespaces/{project}/services",
        {"metadata": {"name": "lab"}, "spec": {"selector": {"app": "theirs"}, "ports": [{"port": 80}]}},
    )
    refused = await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    assert refused.status_code == 409, refused.text
    problem = refused.json()
    assert problem["field"] == "name" and "Service" in problem["detail"]

    async def only_theirs() -> bool:
        return await _lab_objects(kube, project) == {
            "statefulsets": [],
            "services": ["lab"],  # theirs, untouched
            "claims": [],
            "pods": [],
        }

    await until(only_theirs, within=20)
    theirs = await kube.get(f"/api/v1/namespaces/{project}/services/lab")
    assert theirs is not None and theirs["spec"]["selector"] == {"app": "theirs"}


async def test_a_second_lab_of_the_same_name_is_a_conflict(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str
) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    ).status_code == 201
    again = await nufi.post(
        f"/api/v1/projects/{project}/labs", json=lab_body(kind="vscode"), headers=world.user
    )
    assert again.status_code == 409 and again.json()["field"] == "name"
    sts = await kube.get(f"/apis/apps/v1/namespaces/{project}/statefulsets/lab")
    assert sts is not None and sts["metadata"]["annotations"]["nufi.io/lab-kind"] == "jupyter"


async def test_bad_fields_are_named(nufi: httpx.AsyncClient, world: World, kube: Kube, project: str) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        (lab_body("Bad_Name"), "name"),
        (lab_body("9lab"), "name"),
        (lab_body("x" * 53), "name"),
        (lab_body(accelerator={"device_type": "nope", "count": 1}), "accelerator.device_type"),
        (lab_body(accelerator={"device_type": "lpu", "count": 7}), "accelerator.count"),
    ]
    for body, field in cases:
        response = await nufi.post(f"/api/v1/projects/{project}/labs", json=body, headers=world.user)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["field"] == field, (body, response.json())
    for body, field in (
        (lab_body(kind="emacs"), "kind"),
        (lab_body(storage_gib=0), "storage_gib"),
        (lab_body(image="has space:1"), "image"),
        (lab_body(image=""), "image"),
        ({**lab_body(), "extra": 1}, "extra"),
    ):
        response = await nufi.post(f"/api/v1/projects/{project}/labs", json=body, headers=world.user)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["field"] == field, (body, response.json())
    assert (await _lab_objects(kube, project))["claims"] == []


async def test_a_lab_asking_more_than_is_free_is_pending_in_the_accelerators_words(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    # lpu-node-1 has 6 and lpu-node-2 has 4: one lab takes 6, the next asking 5 cannot be placed.
    first = await nufi.post(
        f"/api/v1/projects/{project}/labs",
        json=lab_body("big", accelerator={"device_type": "lpu", "count": 6}),
        headers=world.user,
    )
    assert first.status_code == 201, first.text

    async def ready() -> bool:
        lab = (await nufi.get(f"/api/v1/projects/{project}/labs/big", headers=world.user)).json()
        return bool(lab["status"] == "Ready")

    await until(ready, within=20)
    second = await nufi.post(
        f"/api/v1/projects/{project}/labs",
        json=lab_body("wait", accelerator={"device_type": "lpu", "count": 5}),
        headers=world.user,
    )
    assert second.status_code == 201, second.text

    async def pending() -> dict[str, Any] | None:
        lab = (await nufi.get(f"/api/v1/projects/{project}/labs/wait", headers=world.user)).json()
        return lab if lab["status"] == "Pending" else None

    lab = present(await until(pending, within=20))
    assert lab["reason"] == "no node has 5 free HyperAccel LPU: lpu-node-1 has 0; lpu-node-2 has 4"
    reason = lab["reason_message"]
    assert (reason["code"], reason["params"]["count"], reason["params"]["resource_key"]) == (
        "workload.pending.no_free",
        5,
        LPU,
    )
    assert [figure["params"] for figure in reason["params"]["figures"]] == [
        {"node": "lpu-node-1", "count": 0},
        {"node": "lpu-node-2", "count": 4},
    ]


async def test_a_device_type_a_lab_uses_cannot_be_deleted(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    ).status_code == 201
    refused = await nufi.delete("/api/v1/admin/devices/lpu", headers=world.admin)
    assert refused.status_code == 409, refused.text
    assert refused.json()["workloads"] == [f"{project}/lab/lab"]
