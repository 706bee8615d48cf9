"""Cascading deletion as a client asks for it: kubernetes-asyncio's delete with
`V1DeleteOptions(propagation_policy=...)` reaches the dev cluster's garbage collector.

"Use Cascading Deletion" (kubernetes.io/docs/tasks/administer-cluster/use-cascading-deletion/): the
policy travels in the DELETE body's `propagationPolicy`; with Foreground the owner shows a
deletionTimestamp and the foregroundDeletion finalizer until its blocking dependents are gone; with
Orphan the dependents stay, without the reference.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.kube import api_client, new_namespace
from support.polling import until

HOLD = "example.com/hold"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="gc-", simulation=False) as cluster:
        yield cluster


@pytest.fixture
async def core(cluster: DevClusterProcess) -> AsyncIterator[client.CoreV1Api]:
    async with api_client(cluster.kubeconfig) as api:
        yield client.CoreV1Api(api)


async def _owner_and_dependent(core: client.CoreV1Api, namespace: str) -> Any:
    owner = await core.create_namespaced_config_map(namespace, {"metadata": {"name": "owner"}})
    reference = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner.metadata.uid,
        "blockOwnerDeletion": True,
    }
    await core.create_namespaced_config_map(
        namespace, {"metadata": {"name": "dependent", "ownerReferences": [reference], "finalizers": [HOLD]}}
    )
    return owner


async def _absent(core: client.CoreV1Api, namespace: str, name: str) -> bool:
    try:
        await core.read_namespaced_config_map(name, namespace)
    except ApiException as exc:
        return exc.status == 404
    return False


async def test_foreground_through_kubernetes_asyncio(core: client.CoreV1Api) -> None:
    namespace = await new_namespace(core.api_client)
    await _owner_and_dependent(core, namespace)
    await core.delete_namespaced_config_map(
        "owner", namespace, body=client.V1DeleteOptions(propagation_policy="Foreground")
    )
    waiting = await core.read_namespaced_config_map("owner", namespace)
    assert waiting.metadata.deletion_timestamp is not None
    assert "foregroundDeletion" in waiting.metadata.finalizers
    dependent = await core.read_namespaced_config_map("dependent", namespace)
    assert dependent.metadata.deletion_timestamp is not None
    await core.patch_namespaced_config_map("dependent", namespace, {"metadata": {"finalizers": None}})

    async def owner_gone() -> bool:
        return await _absent(core, namespace, "owner") and await _absent(core, namespace, "dependent")

    await until(owner_gone, within=10)


async def test_orphan_through_kubernetes_asyncio(core: client.CoreV1Api) -> None:
    namespace = await new_namespace(core.api_client)
    await _owner_and_dependent(core, namespace)
    await core.delete_namespaced_config_map(
        "owner", namespace, body=client.V1DeleteOptions(propagation_policy="Orphan")
    )
    assert await _absent(core, namespace, "owner")
    dependent = await core.read_namespaced_config_map("dependent", namespace)
    assert dependent.metadata.deletion_timestamp is None
    assert not dependent.metadata.owner_references


async def test_background_is_the_default_through_kubernetes_asyncio(core: client.CoreV1Api) -> None:
    namespace = await new_namespace(core.api_client)
    owner = await core.create_namespaced_config_map(namespace, {"metadata": {"name": "owner"}})
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner.metadata.uid}
    await core.create_namespaced_config_map(
        namespace, {"metadata": {"name": "dependent", "ownerReferences": [reference]}}
    )
    await core.delete_namespaced_config_map("owner", namespace)
    assert await _absent(core, namespace, "owner")
    await until(lambda: _absent(core, namespace, "dependent"), within=10)
