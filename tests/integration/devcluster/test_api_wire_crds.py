"""Custom resources in the dev cluster, driven by kubernetes-asyncio: a CRD's group appears in
discovery, its objects are served under every served version, and they go with the CRD."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster

NOTEBOOK_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "notebooks.kubeflow.org"},
    "spec": {
        "group": "kubeflow.org",
        "scope": "Namespaced",
        "names": {
            "kind": "Notebook",
            "plural": "notebooks",
            "singular": "notebook",
            "listKind": "NotebookList",
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            },
            {
                "name": "v1beta1",
                "served": True,
                "storage": False,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            },
        ],
    },
}


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="crd-", simulation=False) as cluster:
        yield cluster


async def test_custom_resources_appear_with_their_crd(api: client.ApiClient, namespace: str) -> None:
    custom = client.CustomObjectsApi(api)
    with pytest.raises(ApiException):
        await custom.list_namespaced_custom_object("kubeflow.org", "v1", namespace, "notebooks")
    ext = client.ApiextensionsV1Api(api)
    await ext.create_custom_resource_definition(NOTEBOOK_CRD)
    try:
        groups = await client.ApisApi(api).get_api_versions()
        assert "kubeflow.org" in [g.name for g in groups.groups]
        nb = {
            "apiVersion": "kubeflow.org/v1",
            "kind": "Notebook",
            "metadata": {"name": "lab"},
            "spec": {"template": {"spec": {"containers": [{"name": "lab", "image": "jupyter:1"}]}}},
        }
        created = await custom.create_namespaced_custom_object(
            "kubeflow.org", "v1", namespace, "notebooks", nb
        )
        assert created["metadata"]["uid"]
        # the same object is served under the other version too
        beta = await custom.get_namespaced_custom_object(
            "kubeflow.org", "v1beta1", namespace, "notebooks", "lab"
        )
        assert beta["apiVersion"] == "kubeflow.org/v1beta1"
        patched = await custom.patch_namespaced_custom_object(
            "kubeflow.org",
            "v1",
            namespace,
            "notebooks",
            "lab",
            {"metadata": {"annotations": {"kubeflow-resource-stopped": "now"}}},
            _content_type="application/merge-patch+json",
        )
        assert patched["metadata"]["annotations"] == {"kubeflow-resource-stopped": "now"}
    finally:
        await ext.delete_custom_resource_definition("notebooks.kubeflow.org")
    with pytest.raises(ApiException):
        await custom.list_namespaced_custom_object("kubeflow.org", "v1", namespace, "notebooks")
