"""The dev cluster as a process, as NuFi meets it: kubernetes-asyncio over HTTP, kubelet sockets on disk."""

from __future__ import annotations

import textwrap
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import grpc
import pytest
from kubernetes_asyncio import client

from nufi_mock.kubelet_api import podresources_v1_pb2, podresources_v1_pb2_grpc
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.polling import until

from .fakeplugin import FakePlugin, devices

LPU = "nufi.example/lpu"
NODES = textwrap.dedent("""\
    nodes:
      - name: cpu-1
      - name: lpu-1
        labels: {accelerator: lpu}
      - name: gpu-1
        taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
        capacity: {nvidia.com/gpu: 2}
    """)


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(NODES, prefix="dc-") as process:
        yield process


def pod(
    name: str,
    *,
    limits: dict[str, str] | None = None,
    gates: list[str] | None = None,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "main",
                "image": "busybox:1.36",
                "resources": {"limits": limits or {}},
                "ports": [{"name": "http", "containerPort": 8000}],
            }
        ]
    }
    if gates:
        spec["readinessGates"] = [{"conditionType": g} for g in gates]
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": spec}


async def test_unschedulable_pod_carries_the_scheduler_message(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_pod(namespace, pod("greedy", limits={"nvidia.com/gpu": "1"}))

    async def scheduled_condition() -> Any:
        current = await v1.read_namespaced_pod("greedy", namespace)
        return next((c for c in current.status.conditions or [] if c.type == "PodScheduled"), None)

    condition = await until(scheduled_condition)
    assert condition.status == "False" and condition.reason == "Unschedulable"
    assert condition.message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: }, "
        "2 Insufficient nvidia.com/gpu."
    )
    current = await v1.read_namespaced_pod("greedy", namespace)
    assert current.status.phase == "Pending" and current.spec.node_name is None


async def test_readiness_gate_holds_ready_until_patched(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_pod(
        namespace, pod("gated", gates=["nufi.dev/thermal-ok"], labels={"app": "g"})
    )
    await v1.create_namespaced_service(
        namespace,
        {
            "metadata": {"name": "g"},
            "spec": {"selector": {"app": "g"}, "ports": [{"port": 80, "targetPort": "http"}]},
        },
    )

    async def conditions() -> dict[str, str]:
        current = await v1.read_namespaced_pod("gated", namespace)
        found = {c.type: c.status for c in current.status.conditions or []}
        return found if found.get("ContainersReady") == "True" else {}

    before = await until(conditions)
    assert before["Ready"] == "False"
    discovery = client.DiscoveryV1Api(api)

    async def endpoint() -> Any:
        slices = await discovery.list_namespaced_endpoint_slice(
            namespace, label_selector="kubernetes.io/service-name=g"
        )
        eps = [e for s in slices.items for e in (s.endpoints or [])]
        return eps[0] if eps else None

    ep = await until(endpoint)
    assert ep.conditions.ready is False and ep.conditions.serving is False

    await v1.patch_namespaced_pod_status(
        "gated", namespace, {"status": {"conditions": [{"type": "nufi.dev/thermal-ok", "status": "True"}]}}
    )

    async def ready() -> bool:
        return (await conditions()).get("Ready") == "True"

    await until(ready)
    after = await conditions()
    assert after["PodScheduled"] == "True" and after["ContainersReady"] == "True"

    async def endpoint_ready() -> bool:
        current = await endpoint()
        return bool(current and current.conditions.ready)

    await until(endpoint_ready)
    slices = await discovery.list_namespaced_endpoint_slice(
        namespace, label_selector="kubernetes.io/service-name=g"
    )
    assert slices.items[0].ports[0].port == 8000


async def test_device_plugin_registration_allocation_and_pod_resources(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    plugin = FakePlugin(cluster.device_plugin_dir("lpu-1"), "lpu.sock", devices(4))
    await plugin.serve()
    try:
        await plugin.register(resource=LPU)

        async def node_lpus() -> tuple[str, str] | None:
            node = await v1.read_node("lpu-1")
            cap, alloc = node.status.capacity.get(LPU), node.status.allocatable.get(LPU)
            return (cap, alloc) if cap else None

        assert await until(node_lpus) == ("4", "4")
        await v1.create_namespaced_pod(namespace, pod("infer", limits={LPU: "2"}))

        async def running() -> Any:
            current = await v1.read_namespaced_pod("infer", namespace)
            return current if current.status.phase == "Running" else None

        placed = await until(running)
        assert placed.spec.node_name == "lpu-1"
        assert len(plugin.allocate_requests) == 1 and len(plugin.allocate_requests[0]) == 2

        async with grpc.aio.insecure_channel(f"unix://{cluster.pod_resources_socket('lpu-1')}") as channel:
            lister = podresources_v1_pb2_grpc.PodResourcesListerStub(channel)
            listed = await lister.List(podresources_v1_pb2.ListPodResourcesRequest())
        entries = {(p.namespace, p.name): p for p in listed.pod_resources}
        container = entries[(namespace, "infer")].containers[0]
        assert container.devices[0].resource_name == LPU
        assert sorted(container.devices[0].device_ids) == sorted(plugin.allocate_requests[0])

        plugin.publish(devices(4, unhealthy=("lpu-3",)))
        assert await until(lambda: _when(node_lpus, ("4", "3"))) == ("4", "3")

        cluster.restart_kubelet("lpu-1")
        assert not plugin.socket_path.exists()  # the kubelet wiped plugin sockets on restart
    finally:
        await plugin.stop()


async def _when(check: Callable[[], Awaitable[Any]], wanted: Any) -> Any:
    value = await check()
    return value if value == wanted else None
