"""The simulated kubelet's allocations through a device plugin, and the PodResources API that
reports them."""

from __future__ import annotations

import re

import grpc
import pytest

from nufi_mock.kubelet_api import (
    podresources_v1_pb2,
    podresources_v1_pb2_grpc,
    podresources_v1alpha1_pb2,
    podresources_v1alpha1_pb2_grpc,
)
from nufi_sandbox.devcluster.kubelet import AllocationError

from .fakeplugin import RES, devices
from .grpc_kubelet import Kubelet


async def test_allocate_calls_the_plugin_with_the_chosen_devices(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin(pre_start_required=True)
    await kubelet.listener.wait_for(4, 4)

    first = await kubelet.manager.allocate(
        pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=2
    )
    assert first.device_ids == ("lpu-0", "lpu-1")
    assert plugin.allocate_requests == [["lpu-0", "lpu-1"]]
    assert plugin.pre_start_requests == [["lpu-0", "lpu-1"]]
    assert dict(first.envs) == {"MOCK_VISIBLE_DEVICES": "lpu-0,lpu-1"}
    assert dict(first.annotations) == {"mock.example/devices": "lpu-0,lpu-1"}
    assert [(m.container_path, m.host_path, m.read_only) for m in first.mounts] == [
        ("/opt/mock", "/var/lib/mock", True)
    ]
    assert [(d.host_path, d.permissions) for d in first.devices] == [
        ("/dev/lpu-0", "rw"),
        ("/dev/lpu-1", "rw"),
    ]
    assert first.cdi_devices == ("mock.example/lpu=lpu-0", "mock.example/lpu=lpu-1")

    again = await kubelet.manager.allocate(
        pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=2
    )
    assert again == first
    second = await kubelet.manager.allocate(
        pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="d", resource=RES, count=2
    )
    assert second.device_ids == ("lpu-2", "lpu-3")
    assert len(plugin.allocate_requests) == 2


async def test_allocate_honours_the_preferred_allocation(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin(get_preferred_allocation_available=True)
    plugin.prefer = lambda available, size: sorted(available, reverse=True)[:size]
    await kubelet.listener.wait_for(4, 4)

    chosen = await kubelet.manager.allocate(
        pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=2
    )
    assert chosen.device_ids == ("lpu-3", "lpu-2")
    assert plugin.preferred_requests == [(["lpu-0", "lpu-1", "lpu-2", "lpu-3"], 2)]
    assert plugin.allocate_requests == [["lpu-3", "lpu-2"]]

    plugin.prefer = lambda available, size: ["no-such-device"]
    fallback = await kubelet.manager.allocate(
        pod_namespace="ns", pod_name="q", pod_uid="uid-q", container="c", resource=RES, count=1
    )
    assert fallback.device_ids == ("lpu-0",)
    assert plugin.preferred_requests[1] == (["lpu-0", "lpu-1"], 1)


async def test_failed_allocation_records_nothing(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    allocate = kubelet.manager.allocate

    with pytest.raises(
        AllocationError, match=re.escape("unavailable for nufi.example/lpu. Requested: 5, Available: 4")
    ):
        await allocate(
            pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=5
        )
    with pytest.raises(
        AllocationError, match=re.escape("cannot allocate unregistered device nufi.example/other")
    ):
        await allocate(
            pod_namespace="ns",
            pod_name="p",
            pod_uid="uid-p",
            container="c",
            resource="nufi.example/other",
            count=1,
        )
    assert plugin.allocate_requests == []

    plugin.allocate_error = "out of tokens"
    with pytest.raises(AllocationError, match="rpc error: code = Internal desc = out of tokens"):
        await allocate(
            pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=2
        )
    assert kubelet.manager.allocations() == []

    plugin.allocate_error = None
    whole = await allocate(
        pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=4
    )
    assert len(whole.device_ids) == 4


async def assert_v1_lists_and_gets_both_pods(v1: podresources_v1_pb2_grpc.PodResourcesListerStub) -> None:
    listed = await v1.List(podresources_v1_pb2.ListPodResourcesRequest())
    assert [(p.namespace, p.name) for p in listed.pod_resources] == [("ns", "p1"), ("ns", "p2")]
    main = listed.pod_resources[0].containers[0]
    assert main.name == "main"
    assert [
        (d.resource_name, list(d.device_ids), [n.ID for n in d.topology.nodes]) for d in main.devices
    ] == [
        (RES, ["lpu-0", "lpu-1"], [0]),
        (RES, ["lpu-2"], [1]),
    ]
    side = listed.pod_resources[1].containers[0].devices[0]
    assert (list(side.device_ids), side.HasField("topology")) == (["lpu-3"], False)

    got = await v1.Get(podresources_v1_pb2.GetPodResourcesRequest(pod_name="p2", pod_namespace="ns"))
    assert got.pod_resources == listed.pod_resources[1]
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await v1.Get(podresources_v1_pb2.GetPodResourcesRequest(pod_name="nope", pod_namespace="ns"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == "pod nope in namespace ns not found"


async def assert_v1alpha1_lists_both_pods(
    alpha: podresources_v1alpha1_pb2_grpc.PodResourcesListerStub,
) -> None:
    old = await alpha.List(podresources_v1alpha1_pb2.ListPodResourcesRequest())
    assert [
        (p.name, c.name, d.resource_name, list(d.device_ids))
        for p in old.pod_resources
        for c in p.containers
        for d in c.devices
    ] == [
        ("p1", "main", RES, ["lpu-0", "lpu-1"]),
        ("p1", "main", RES, ["lpu-2"]),
        ("p2", "side", RES, ["lpu-3"]),
    ]


async def test_pod_resources_show_assignments_until_released(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    allocate = kubelet.manager.allocate
    await allocate(
        pod_namespace="ns", pod_name="p1", pod_uid="uid-1", container="main", resource=RES, count=3
    )
    await allocate(
        pod_namespace="ns", pod_name="p2", pod_uid="uid-2", container="side", resource=RES, count=1
    )

    async with kubelet.channel() as channel:
        v1 = podresources_v1_pb2_grpc.PodResourcesListerStub(channel)
        alpha = podresources_v1alpha1_pb2_grpc.PodResourcesListerStub(channel)

        await assert_v1_lists_and_gets_both_pods(v1)
        await assert_v1alpha1_lists_both_pods(alpha)

        kubelet.manager.release("uid-1")
        listed = await v1.List(podresources_v1_pb2.ListPodResourcesRequest())
        assert [p.name for p in listed.pod_resources] == ["p2"]

        mark = len(kubelet.listener.events)
        plugin.publish(devices(unhealthy=("lpu-1",)))
        await kubelet.listener.wait_for(4, 3, since=mark)
        allocatable = await v1.GetAllocatableResources(podresources_v1_pb2.AllocatableResourcesRequest())
        assert [(list(d.device_ids), [n.ID for n in d.topology.nodes]) for d in allocatable.devices] == [
            (["lpu-0"], [0]),
            (["lpu-2"], [1]),
            (["lpu-3"], []),
        ]

    reused = await allocate(
        pod_namespace="ns", pod_name="p3", pod_uid="uid-3", container="c", resource=RES, count=2
    )
    assert reused.device_ids == ("lpu-0", "lpu-2")
