"""Labs where the cluster serves the Kubeflow Notebook CRD: a `Notebook` (kubeflow.org/v1) and the
claim for its home, stopped and started with the controller's annotation through a merge patch,
deleted without a trace, and a refused create rolled back."""

from __future__ import annotations

import httpx

from support.polling import until
from support.world import LPU, World

from .labs_world import Kube, lab_body


def _notebooks(project: str) -> str:
    return f"/apis/kubeflow.org/v1/namespaces/{project}/notebooks"


async def test_a_lab_is_a_notebook_and_a_claim(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str, notebooks: None
) -> None:
    created = await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    assert created.status_code == 201, created.text
    view = created.json()
    assert view["backend"] == "notebook"
    assert view["url"] == f"/notebook/{project}/lab/"
    assert "origin_url" in view and view["origin_url"] is None
    assert view["status"] in ("Starting", "Ready")

    notebook = await kube.get(f"{_notebooks(project)}/lab")
    assert notebook is not None
    labels = notebook["metadata"]["labels"]
    assert labels == {
        "app.kubernetes.io/managed-by": "nufi",
        "nufi.io/project": project,
        "nufi.io/workload": "lab",
        "nufi.io/workload-kind": "lab",
        "nufi.io/device-type": "lpu",
    }
    assert notebook["metadata"]["annotations"] == {"nufi.io/lab-kind": "jupyter", "nufi.io/storage-gib": "5"}
    spec = notebook["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    # The controller reads the state of the container named like the Notebook, and sets NB_PREFIX.
    assert container["name"] == "lab"
    assert "env" not in container
    assert container["resources"] == {"limits": {LPU: "1"}, "requests": {LPU: "1"}}
    assert container["readinessProbe"]["httpGet"] == {
        "path": f"/notebook/{project}/lab/api",
        "port": "notebook-port",
    }
    assert spec["volumes"] == [{"name": "home", "persistentVolumeClaim": {"claimName": "lab-home"}}]
    claim = await kube.get(f"/api/v1/namespaces/{project}/persistentvolumeclaims/lab-home")
    assert claim is not None and claim["spec"]["resources"]["requests"]["storage"] == "5Gi"

    # The dev cluster's notebook controller makes the StatefulSet and the Service, owned by the
    # Notebook; the lab becomes Ready once its pod is.
    async def ready() -> bool:
        lab = (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).json()
        return bool(lab["status"] == "Ready")

    await until(ready, within=20)
    for path in (
        f"/apis/apps/v1/namespaces/{project}/statefulsets/lab",
        f"/api/v1/namespaces/{project}/services/lab",
    ):
        made = await kube.get(path)
        assert made is not None
        assert [ref["kind"] for ref in made["metadata"]["ownerReferences"]] == ["Notebook"]
    pod = await kube.get(f"/api/v1/namespaces/{project}/pods/lab-0")
    assert pod is not None and pod["metadata"]["labels"]["nufi.io/workload"] == "lab"
    listed = (await nufi.get(f"/api/v1/projects/{project}/labs", headers=world.user)).json()
    assert [(lab["name"], lab["backend"]) for lab in listed["items"]] == [("lab", "notebook")]


async def test_a_vscode_notebook_asks_for_the_prefix_to_be_taken_off(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str, notebooks: None
) -> None:
    created = await nufi.post(
        f"/api/v1/projects/{project}/labs", json=lab_body("code", kind="vscode"), headers=world.user
    )
    assert created.status_code == 201, created.text
    notebook = await kube.get(f"{_notebooks(project)}/code")
    assert notebook is not None
    assert notebook["metadata"]["annotations"]["notebooks.kubeflow.org/http-rewrite-uri"] == "/"
    (container,) = notebook["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "codercom/code-server:latest"
    assert container["ports"] == [{"name": "notebook-port", "containerPort": 8080, "protocol": "TCP"}]


async def test_stop_and_start_set_and_remove_the_controllers_annotation(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str, notebooks: None
) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    ).status_code == 201
    stopped = await nufi.post(f"/api/v1/projects/{project}/labs/lab/stop", headers=world.user)
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["status"] == "Stopped"
    notebook = await kube.get(f"{_notebooks(project)}/lab")
    assert notebook is not None
    annotations = notebook["metadata"]["annotations"]
    assert annotations["kubeflow-resource-stopped"].endswith("Z")
    assert annotations["nufi.io/lab-kind"] == "jupyter"  # the merge patch kept the others

    async def pod_gone() -> bool:
        return await kube.get(f"/api/v1/namespaces/{project}/pods/lab-0") is None

    await until(pod_gone, within=20)
    started = await nufi.post(f"/api/v1/projects/{project}/labs/lab/start", headers=world.user)
    assert started.status_code == 200 and started.json()["status"] in ("Starting", "Ready")
    notebook = await kube.get(f"{_notebooks(project)}/lab")
    assert notebook is not None and "kubeflow-resource-stopped" not in notebook["metadata"]["annotations"]

    async def ready() -> bool:
        lab = (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).json()
        return bool(lab["status"] == "Ready")

    await until(ready, within=20)


async def test_delete_leaves_nothing(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str, notebooks: None
) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    ).status_code == 201

    async def running() -> bool:
        return await kube.get(f"/api/v1/namespaces/{project}/pods/lab-0") is not None

    await until(running, within=20)
    assert (await nufi.delete(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).status_code == 204

    async def empty() -> bool:
        names = [
            await kube.names(path)
            for path in (
                _notebooks(project),
                f"/apis/apps/v1/namespaces/{project}/statefulsets",
                f"/api/v1/namespaces/{project}/services",
                f"/api/v1/namespaces/{project}/pods",
                f"/api/v1/namespaces/{project}/persistentvolumeclaims",
            )
        ]
        return names == [[], [], [], [], []]

    await until(empty, within=20)
    assert (await nufi.get(f"/api/v1/projects/{project}/labs/lab", headers=world.user)).status_code == 404


async def test_a_notebook_refused_half_way_leaves_no_claim(
    nufi: httpx.AsyncClient, world: World, kube: Kube, project: str, notebooks: None
) -> None:
    # A Notebook of that name that NuFi did not make: not a lab, but its name is taken.
    await kube.create(
        _notebooks(project),
        {"apiVersion": "kubeflow.org/v1", "kind": "Notebook", "metadata": {"name": "lab"}, "spec": {}},
    )
    refused = await nufi.post(f"/api/v1/projects/{project}/labs", json=lab_body(), headers=world.user)
    assert refused.status_code == 409, refused.text
    assert refused.json()["field"] == "name" and "Notebook" in refused.json()["detail"]
    assert await kube.names(f"/api/v1/namespaces/{project}/persistentvolumeclaims") == []
    assert await kube.names(_notebooks(project)) == ["lab"]
    # Not NuFi's: not listed as a lab either.
    assert (await nufi.get(f"/api/v1/projects/{project}/labs", headers=world.user)).json() == {"items": []}
