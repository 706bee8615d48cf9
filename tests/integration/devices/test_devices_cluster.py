"""Resource-key checks and inventories against the dev cluster, with 1,200+ nodes to page through."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import yaml
from kubernetes_asyncio.client import ApiClient, CoreV1Api

from nufi.cluster import ClusterGateway, list_cluster_state
from nufi.cluster.inventory import list_bound_pods, list_nodes
from nufi.config import Settings
from nufi.devices.checks import FOUND_MESSAGE, check_resource_key
from nufi.devices.fetcher import GenericFetcher
from nufi.devices.spec import DeviceType
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.polling import until

LPU = "hyperaccel.ai/lpu"
PLAIN_NODES = 1200
LPU_NODES = {"lpu-a": 4, "lpu-b": 8, "lpu-zero": 0}


@pytest.fixture(scope="module")
def devcluster() -> Iterator[DevClusterProcess]:
    nodes: list[dict[str, Any]] = [
        {"name": f"node-{i:04d}", "device_plugins": False, "capacity": {"cpu": 8}} for i in range(PLAIN_NODES)
    ]
    nodes += [
        {"name": name, "device_plugins": False, "capacity": {LPU: count, "example.com/idle": 0}}
        for name, count in LPU_NODES.items()
    ]
    with dev_cluster(yaml.safe_dump({"nodes": nodes}), prefix="dev-", start_timeout=60) as cluster:
        yield cluster


@pytest.fixture(scope="module")
async def gateway(devcluster: DevClusterProcess) -> AsyncIterator[ClusterGateway]:
    gateway = ClusterGateway.from_settings(Settings(kubeconfig=devcluster.kubeconfig), environ={})
    try:
        yield gateway
    finally:
        await gateway.close()


class ListCalls:
    """Records the arguments of every node and pod list call; the calls themselves go through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.pods: list[dict[str, Any]] = []
        original = ApiClient.call_api
        logs = {"/api/v1/nodes": self.nodes, "/api/v1/pods": self.pods}

        def spy(client: ApiClient, path: str, *args: Any, **kwargs: Any) -> Any:
            if path in logs:
                logs[path].append(dict(kwargs.get("query_params") or []))
            return original(client, path, *args, **kwargs)

        monkeypatch.setattr(ApiClient, "call_api", spy)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> ListCalls:
    return ListCalls(monkeypatch)


def lpu_type() -> DeviceType:
    return DeviceType.model_validate(
        {
            "id": "lpu",
            "name": "HyperAccel LPU",
            "vendor": "HyperAccel",
            "kind": "custom",
            "resource_key": LPU,
            "labels": {"node": "node", "device": "device"},
            "metrics": {"utilization": "lpu_utilization_percent"},
        }
    )


async def test_check_finds_the_key_on_the_right_nodes_paging_through_all_of_them(
    gateway: ClusterGateway, calls: ListCalls
) -> None:
    result = await check_resource_key(LPU, gateway)
    assert result.valid and result.found
    assert [(n.name, n.capacity, n.allocatable) for n in result.nodes] == [
        ("lpu-a", 4, 4),
        ("lpu-b", 8, 8),
        ("lpu-zero", 0, 0),
    ]
    assert result.message.startswith(FOUND_MESSAGE)
    assert "12 on 2 nodes" in result.message
    # 1,203 nodes in pages of 500: three requests, each after the first carrying the continue token.
    assert [call["limit"] for call in calls.nodes] == ["500", "500", "500"]
    assert "continue" not in calls.nodes[0]
    assert all(call["continue"] for call in calls.nodes[1:])


async def test_a_smaller_page_size_takes_more_pages_and_finds_the_same(
    gateway: ClusterGateway, calls: ListCalls
) -> None:
    nodes = await list_nodes(gateway, page_size=100)
    assert len(calls.nodes) == 13
    names = [node.name for node in nodes]
    assert len(names) == len(set(names)) == PLAIN_NODES + len(LPU_NODES)


async def test_a_key_no_node_advertises_is_named(gateway: ClusterGateway) -> None:
    result = await check_resource_key("acme.com/npu", gateway)
    assert result.valid and not result.found and result.nodes == []
    assert "No node advertises 'acme.com/npu'" in result.message
    assert "1203 nodes" in result.message


async def test_a_key_listed_only_with_capacity_zero_is_not_found(gateway: ClusterGateway) -> None:
    result = await check_resource_key("example.com/idle", gateway)
    assert result.valid and not result.found
    assert [(n.name, n.capacity) for n in result.nodes] == [("lpu-a", 0), ("lpu-b", 0), ("lpu-zero", 0)]
    assert "'example.com/idle' is listed on 3 nodes but with capacity 0" in result.message


async def test_a_near_miss_is_suggested(gateway: ClusterGateway) -> None:
    result = await check_resource_key("hyperaccel.ai/LPU", gateway)
    assert not result.found
    assert "Did you mean 'hyperaccel.ai/lpu'?" in result.message


async def test_an_invalid_key_is_refused_without_asking_the_cluster(calls: ListCalls) -> None:
    unconfigured = ClusterGateway(None)  # any cluster call would raise DependencyUnavailable
    result = await check_resource_key("kubernetes.io/lpu", unconfigured)
    assert not result.valid and not result.found
    assert "reserved for Kubernetes" in result.message and "'kubernetes.io/lpu'" in result.message
    assert result.problems and calls.nodes == []


async def create_pod(
    api: CoreV1Api, name: str, amount: int, *, node: str | None = None, namespace: str = "default"
) -> None:
    spec: dict[str, Any] = {
        "containers": [{"name": "main", "image": "busybox", "resources": {"limits": {LPU: str(amount)}}}]
    }
    if node is not None:
        spec["nodeName"] = node
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
    await api.create_namespaced_pod(namespace, body)


async def test_inventory_counts_what_bound_live_pods_request(
    gateway: ClusterGateway, calls: ListCalls
) -> None:
    api = CoreV1Api(await gateway.api_client())
    await api.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "serving"}})
    await create_pod(api, "bound-two", 2, node="lpu-a")
    await create_pod(api, "bound-elsewhere", 1, node="lpu-b", namespace="serving")
    await create_pod(api, "finished", 1, node="lpu-b")
    await api.patch_namespaced_pod_status("finished", "default", {"status": {"phase": "Succeeded"}})
    await create_pod(api, "too-big", 64)  # no node has 64: stays Pending, bound nowhere

    async def found_no_node() -> bool:
        conditions = (await api.read_namespaced_pod("too-big", "default")).status.conditions or []
        return any(c.type == "PodScheduled" and c.reason == "Unschedulable" for c in conditions)

    await until(found_no_node)  # the scheduler has had its go at it

    inventory = GenericFetcher().inventory(lpu_type(), await list_cluster_state(gateway))

    assert [(n.node, n.capacity, n.allocatable, n.allocated) for n in inventory.nodes] == [
        ("lpu-a", 4, 4, 2),
        ("lpu-b", 8, 8, 1),
        ("lpu-zero", 0, 0, 0),
    ]
    free = inventory.allocatable - inventory.allocated
    assert (inventory.capacity, inventory.allocated, free) == (12, 3, 9)
    # One paginated node list (3 pages) and one pod list, whatever the number of nodes.
    assert len(calls.nodes) == 3 and len(calls.pods) == 1
    assert calls.pods[0]["fieldSelector"] == "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"
    bound = {(pod.namespace, pod.name) for pod in await list_bound_pods(gateway)}
    assert {("default", "bound-two"), ("serving", "bound-elsewhere")} <= bound
    assert ("default", "finished") not in bound and ("default", "too-big") not in bound
