"""The simulated kubelet's gRPC side, driven by a small device plugin over real unix sockets."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import stat
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

# pytest puts this directory on sys.path (it is not a package).
from fakeplugin import RES, DeviceRow, FakePlugin, devices
from google.protobuf import descriptor_pb2

from nufi_mock.kubelet_api import (
    CHECKPOINT_FILE_NAME,
    HEALTHY,
    UNHEALTHY,
    deviceplugin_v1beta1_pb2,
    generate,
    podresources_v1_pb2,
    podresources_v1_pb2_grpc,
    podresources_v1alpha1_pb2,
    podresources_v1alpha1_pb2_grpc,
)
from nufi_sandbox.devcluster.kubelet import AllocationError, DeviceManager

pytestmark = pytest.mark.integration

_pb = deviceplugin_v1beta1_pb2
NODE = "node-a"
Event = tuple[str, str, int, int]


class RecordingListener:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self._changed = asyncio.Event()

    async def devices_changed(self, node: str, resource: str, capacity: int, allocatable: int) -> None:
        self.events.append((node, resource, capacity, allocatable))
        self._changed.set()

    async def wait_for(self, capacity: int, allocatable: int, *, since: int = 0) -> int:
        """Index of the first matching event at or after ``since``."""
        wanted = (NODE, RES, capacity, allocatable)
        async with asyncio.timeout(5):
            while wanted not in self.events[since:]:
                self._changed.clear()
                await self._changed.wait()
        return self.events.index(wanted, since)


class Kubelet:
    def __init__(self, root: Path, grace: float) -> None:
        self.plugin_dir = root / "device-plugins"
        self.pod_resources_socket = root / "pod-resources" / "kubelet.sock"
        self.listener = RecordingListener()
        self.manager = DeviceManager(
            NODE,
            self.plugin_dir,
            self.pod_resources_socket,
            self.listener,
            stop_grace_seconds=grace,
            dial_timeout_seconds=0.5,
        )
        self.plugins: list[FakePlugin] = []

    async def plugin(
        self, rows: list[DeviceRow] | None = None, name: str = "lpu.sock", **options: bool
    ) -> FakePlugin:
        """A serving plugin, registered unless ``register=False``."""
        register = options.pop("register", True)
        plugin = FakePlugin(self.plugin_dir, name, devices() if rows is None else rows, **options)
        self.plugins.append(plugin)
        await plugin.serve()
        if register:
            await plugin.register()
        return plugin

    def channel(self) -> Any:
        return grpc.aio.insecure_channel(f"unix://{self.pod_resources_socket}")


@pytest.fixture
def workdir() -> Iterator[Path]:
    # pytest's tmp_path is too long for a unix socket path (108 bytes).
    path = Path(tempfile.mkdtemp(prefix="kgrpc-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def make_kubelet(workdir: Path) -> AsyncIterator[Callable[..., Awaitable[Kubelet]]]:
    started: list[Kubelet] = []

    async def make(grace: float = 60.0) -> Kubelet:
        kubelet = Kubelet(workdir / str(len(started)), grace)
        started.append(kubelet)
        await kubelet.manager.start()
        return kubelet

    yield make
    for kubelet in started:
        await kubelet.manager.stop()
        for plugin in kubelet.plugins:
            await plugin.stop()


@pytest.fixture
async def kubelet(make_kubelet: Callable[..., Awaitable[Kubelet]]) -> Kubelet:
    return await make_kubelet()


async def test_registration_reports_capacity_and_allocatable(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)

    state = kubelet.manager.resources()[RES]
    assert (state.capacity, state.allocatable) == (4, 4)
    assert state.endpoint == plugin.socket_path
    assert dict(state.devices) == {f"lpu-{i}": HEALTHY for i in range(4)}
    assert dict(state.numa_nodes) == {"lpu-0": (0,), "lpu-1": (0,), "lpu-2": (1,)}
    assert plugin.options_calls == 1


async def test_unsupported_version_is_refused_with_the_kubelet_message(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin(register=False)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await plugin.register(version="v1alpha")
    assert refused.value.code() == grpc.StatusCode.UNKNOWN
    assert refused.value.details() == (
        'requested API version "v1alpha" is not supported by kubelet. Supported version is ["v1beta1"]'
    )
    assert plugin.options_calls == 0
    assert kubelet.manager.resources() == {}


@pytest.mark.parametrize(
    "resource", ["lpu", "kubernetes.io/lpu", "requests.nufi.example/lpu", "Nufi.example/lpu"]
)
async def test_invalid_resource_name_is_refused_with_the_kubelet_message(
    kubelet: Kubelet, resource: str
) -> None:
    plugin = await kubelet.plugin(register=False)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await plugin.register(resource=resource)
    assert refused.value.code() == grpc.StatusCode.UNKNOWN
    assert refused.value.details() == f'the ResourceName "{resource}" is invalid'
    assert kubelet.manager.resources() == {}


async def test_unreachable_or_failing_plugin_is_refused(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin(register=False)
    with pytest.raises(grpc.aio.AioRpcError) as unreachable:
        await plugin.register(endpoint="absent.sock")
    assert unreachable.value.details() == "failed to dial device plugin: context deadline exceeded"

    plugin.options_error = "not ready"
    with pytest.raises(grpc.aio.AioRpcError) as failing:
        await plugin.register()
    assert failing.value.details() == (
        "failed to get device plugin options: rpc error: code = Internal desc = not ready"
    )
    assert kubelet.manager.resources() == {}


async def test_unhealthy_device_lowers_allocatable_only(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    plugin.publish(devices(unhealthy=("lpu-1",)))
    await kubelet.listener.wait_for(4, 3)

    state = kubelet.manager.resources()[RES]
    assert state.devices["lpu-1"] == UNHEALTHY
    assert (state.capacity, state.allocatable) == (4, 3)


async def test_closed_stream_makes_devices_unallocatable_then_removes_them(
    make_kubelet: Callable[..., Awaitable[Kubelet]],
) -> None:
    kubelet = await make_kubelet(grace=0.5)
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    plugin.end_streams()

    stopped = await kubelet.listener.wait_for(4, 0)
    state = kubelet.manager.resources()[RES]
    assert state.endpoint is None
    assert set(state.devices.values()) == {UNHEALTHY}
    removed = await kubelet.listener.wait_for(0, 0)
    assert removed > stopped
    assert RES not in kubelet.manager.resources()


async def test_registering_again_within_grace_keeps_the_resource(
    make_kubelet: Callable[..., Awaitable[Kubelet]],
) -> None:
    kubelet = await make_kubelet(grace=0.5)
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    plugin.end_streams()
    stopped = await kubelet.listener.wait_for(4, 0)
    await plugin.register()
    await kubelet.listener.wait_for(4, 4, since=stopped)

    await asyncio.sleep(0.8)
    assert (NODE, RES, 0, 0) not in kubelet.listener.events
    assert kubelet.manager.resources()[RES].allocatable == 4


async def test_new_registration_replaces_the_old_endpoint(kubelet: Kubelet) -> None:
    old = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    new = await kubelet.plugin(devices(2), name="lpu-new.sock")
    await kubelet.listener.wait_for(2, 2)

    await old.stop()
    await asyncio.sleep(0.3)
    assert kubelet.listener.events[-1] == (NODE, RES, 2, 2)
    assert kubelet.manager.resources()[RES].endpoint == new.socket_path


async def test_restart_removes_plugin_sockets_until_the_plugin_registers_again(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    held = await kubelet.manager.allocate(
        pod_namespace="ns", pod_name="p", pod_uid="uid-p", container="c", resource=RES, count=1
    )
    checkpoint = kubelet.plugin_dir / CHECKPOINT_FILE_NAME
    assert checkpoint.is_file()

    mark = len(kubelet.listener.events)
    await kubelet.manager.restart()
    assert not plugin.socket_path.exists()
    assert stat.S_ISSOCK((kubelet.plugin_dir / "kubelet.sock").stat().st_mode)
    assert checkpoint.is_file()
    assert json.loads(checkpoint.read_text())["Data"]["PodDeviceEntries"][0]["PodUID"] == "uid-p"
    restarted = await kubelet.listener.wait_for(4, 0, since=mark)
    state = kubelet.manager.resources()[RES]
    assert (state.capacity, state.allocatable, state.endpoint) == (4, 0, None)
    with pytest.raises(AllocationError, match="must register again"):
        await kubelet.manager.allocate(
            pod_namespace="ns", pod_name="q", pod_uid="uid-q", container="c", resource=RES, count=1
        )

    await plugin.stop()
    await plugin.serve()
    await plugin.register()
    await kubelet.listener.wait_for(4, 4, since=restarted)
    assert kubelet.manager.allocations() == [held]


async def test_stop_closes_servers_streams_and_sockets(kubelet: Kubelet) -> None:
    plugin = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    events = list(kubelet.listener.events)

    await kubelet.manager.stop()
    assert not (kubelet.plugin_dir / "kubelet.sock").exists()
    assert not kubelet.pod_resources_socket.exists()
    await asyncio.wait_for(plugin.no_open_streams.wait(), 5)
    with pytest.raises(grpc.aio.AioRpcError):
        await plugin.register()
    await asyncio.sleep(0.1)
    assert kubelet.listener.events == events


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


def test_checked_in_bindings_match_the_proto_files() -> None:
    rendered = generate.render()
    assert generate.stale_files(rendered) == []
    assert "from . import podresources_v1_pb2 as" in rendered["podresources_v1_pb2_grpc.py"]


def test_wire_names_and_field_numbers_match_the_kubelet() -> None:
    plugin_file = deviceplugin_v1beta1_pb2.DESCRIPTOR
    methods = {
        f"/{m.containing_service.full_name}/{m.name}": m.server_streaming
        for service in plugin_file.services_by_name.values()
        for m in service.methods
    }
    assert methods == {
        "/v1beta1.Registration/Register": False,
        "/v1beta1.DevicePlugin/GetDevicePluginOptions": False,
        "/v1beta1.DevicePlugin/ListAndWatch": True,
        "/v1beta1.DevicePlugin/GetPreferredAllocation": False,
        "/v1beta1.DevicePlugin/Allocate": False,
        "/v1beta1.DevicePlugin/PreStartContainer": False,
    }

    def numbers(message: Any) -> dict[str, int]:
        return {f.name: f.number for f in message.DESCRIPTOR.fields}

    assert numbers(_pb.RegisterRequest) == {"version": 1, "endpoint": 2, "resource_name": 3, "options": 4}
    assert numbers(_pb.Device) == {"ID": 1, "health": 2, "topology": 3}
    assert numbers(_pb.ContainerAllocateRequest) == {"devices_ids": 1}
    assert numbers(_pb.ContainerPreferredAllocationRequest) == {
        "available_deviceIDs": 1,
        "must_include_deviceIDs": 2,
        "allocation_size": 3,
    }
    assert numbers(_pb.ContainerAllocateResponse) == {
        "envs": 1,
        "mounts": 2,
        "devices": 3,
        "annotations": 4,
        "cdi_devices": 5,
    }
    v1 = podresources_v1_pb2
    assert [m.full_name for m in v1.DESCRIPTOR.services_by_name["PodResourcesLister"].methods] == [
        "v1.PodResourcesLister.List",
        "v1.PodResourcesLister.GetAllocatableResources",
        "v1.PodResourcesLister.Get",
    ]
    assert numbers(v1.PodResources) == {"name": 1, "namespace": 2, "containers": 3, "cpu_ids": 4, "memory": 5}
    assert numbers(v1.ContainerResources) == {"name": 1, "devices": 2, "cpu_ids": 3, "memory": 4}
    container_resources = descriptor_pb2.DescriptorProto()
    v1.ContainerResources.DESCRIPTOR.CopyToProto(container_resources)
    # dynamic_resources is not modelled; its number must stay taken.
    assert [(r.start, r.end) for r in container_resources.reserved_range] == [(5, 6)]
    assert numbers(v1.ContainerDevices) == {"resource_name": 1, "device_ids": 2, "topology": 3}
    assert numbers(v1.GetPodResourcesRequest) == {"pod_name": 1, "pod_namespace": 2}
    alpha = podresources_v1alpha1_pb2
    assert [m.full_name for m in alpha.DESCRIPTOR.services_by_name["PodResourcesLister"].methods] == [
        "v1alpha1.PodResourcesLister.List"
    ]
    assert numbers(alpha.ContainerDevices) == {"resource_name": 1, "device_ids": 2}
