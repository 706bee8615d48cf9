"""The Kubeflow notebook controller of the dev cluster: only with the CRD, and as interop-facts §7.5 says."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes_asyncio import client

from nufi_sandbox.devcluster.crds import NOTEBOOKS_CRD_NAME
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.polling import until

from .processcluster import (
    HTTP_PROBE,
    echo_cluster,
    echo_container,
    proxy_url,
    started_info,
    token_client,
)

GROUP, VERSION, PLURAL = "kubeflow.org", "v1", "notebooks"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with echo_cluster() as process:
        yield process


def _notebook(name: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    container = echo_container(probe={**HTTP_PROBE, "httpGet": {"path": "/healthz", "port": 8888}})
    container["name"] = name
    container["ports"] = []  # the controller adds notebook-port 8888
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Notebook",
        "metadata": {"name": name, "labels": {"team": "a"}, "annotations": annotations or {}},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }


async def test_without_the_crd_nothing_happens(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    extensions = client.ApiextensionsV1Api(api)
    names = [c.metadata.name for c in (await extensions.list_custom_resource_definition()).items]
    assert NOTEBOOKS_CRD_NAME not in names
    custom = client.CustomObjectsApi(api)
    with pytest.raises(client.ApiException) as raised:
        await custom.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, _notebook("nb"))
    assert raised.value.status == 404
    assert not (await client.AppsV1Api(api).list_namespaced_stateful_set(namespace)).items


async def _assert_lab_statefulset_service_and_pod(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    apps, v1 = client.AppsV1Api(api), client.CoreV1Api(api)
    sts = await apps.read_namespaced_stateful_set("lab", namespace)
    assert sts.spec.replicas == 1
    assert sts.metadata.owner_references[0].kind == "Notebook"
    labels = sts.spec.template.metadata.labels
    assert labels == {"team": "a", "statefulset": "lab", "notebook-name": "lab"}
    assert sts.spec.template.metadata.annotations == {"keep": "y"}

    service = await v1.read_namespaced_service("lab", namespace)
    port = service.spec.ports[0]
    assert (port.name, port.port, port.target_port) == ("http-lab", 80, 8888)
    assert service.spec.selector == {"statefulset": "lab"}

    pod = await v1.read_namespaced_pod("lab-0", namespace)
    first = pod.spec.containers[0]
    assert {e.name: e.value for e in first.env}["NB_PREFIX"] == f"/notebook/{namespace}/lab"
    assert (first.ports[0].container_port, first.ports[0].name) == (8888, "notebook-port")
    info = started_info(cluster, pod, "lab")
    assert info is not None and info["env"]["NB_PREFIX"] == f"/notebook/{namespace}/lab"
    async with token_client() as http:
        through = await http.get(proxy_url(cluster, namespace, "lab:http-lab", f"notebook/{namespace}/lab/"))
    assert through.status_code == 200 and through.json()["pod"] == "lab-0"


async def test_notebook_gets_statefulset_service_pod_and_status_then_stops_and_cascades(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    cluster.install_notebooks_crd()
    custom, apps, v1 = client.CustomObjectsApi(api), client.AppsV1Api(api), client.CoreV1Api(api)
    await custom.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, _notebook("lab", {"kubectl.kubernetes.io/x": "1", "keep": "y"})
    )

    async def ready_status() -> Any:
        nb = await custom.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "lab")
        status = nb.get("status") or {}
        ready = {c["type"]: c["status"] for c in status.get("conditions") or []}.get("Ready")
        return nb if status.get("readyReplicas") == 1 and ready == "True" else None

    notebook = await until(ready_status, within=30)
    assert "running" in notebook["status"]["containerState"]

    await _assert_lab_statefulset_service_and_pod(cluster, api, namespace)

    await custom.patch_namespaced_custom_object(
        GROUP,
        VERSION,
        namespace,
        PLURAL,
        "lab",
        {"metadata": {"annotations": {"kubeflow-resource-stopped": "2026-01-01T00:00:00Z"}}},
        _content_type="application/merge-patch+json",  # custom resources take no strategic merge
    )

    async def stopped() -> bool:
        sts = await apps.read_namespaced_stateful_set("lab", namespace)
        pods = (await v1.list_namespaced_pod(namespace, label_selector="notebook-name=lab")).items
        return sts.spec.replicas == 0 and not pods

    await until(stopped, within=20)

    async def status_emptied() -> bool:
        nb = await custom.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "lab")
        return bool(nb["status"]["readyReplicas"] == 0 and nb["status"]["containerState"] == {})

    await until(status_emptied)

    await custom.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "lab")

    async def cascaded() -> bool:
        left = (await apps.list_namespaced_stateful_set(namespace)).items
        services = (await v1.list_namespaced_service(namespace)).items
        return not left and not services

    await until(cascaded, within=20)
    # Leave the cluster as the other tests of this module expect it: without Kubeflow.
    await client.ApiextensionsV1Api(api).delete_custom_resource_definition(NOTEBOOKS_CRD_NAME)
