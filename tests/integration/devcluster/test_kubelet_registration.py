"""The simulated kubelet's device plugin registration, over real unix sockets: capacity, health,
streams that end, re-registration, restarts."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Awaitable, Callable

import grpc
import pytest

from nufi_mock.kubelet_api import (
    CHECKPOINT_FILE_NAME,
    HEALTHY,
    UNHEALTHY,
)
from nufi_sandbox.devcluster.kubelet import AllocationError
from support.polling import stays_true

from .fakeplugin import RES, devices
from .grpc_kubelet import NODE, Kubelet, stream_ended


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
    kubelet, _, stopped = await stream_ended(make_kubelet)
    state = kubelet.manager.resources()[RES]
    assert state.endpoint is None
    assert set(state.devices.values()) == {UNHEALTHY}
    removed = await kubelet.listener.wait_for(0, 0)
    assert removed > stopped
    assert RES not in kubelet.manager.resources()


async def test_registering_again_within_grace_keeps_the_resource(
    make_kubelet: Callable[..., Awaitable[Kubelet]],
) -> None:
    kubelet, plugin, stopped = await stream_ended(make_kubelet)
    await plugin.register()
    await kubelet.listener.wait_for(4, 4, since=stopped)

    # Past the 0.5 s grace the ended stream started: the resource must stay all along.
    def kept() -> bool:
        return (NODE, RES, 0, 0) not in kubelet.listener.events and (
            kubelet.manager.resources()[RES].allocatable == 4
        )

    await stays_true(kept, for_seconds=0.8)


async def test_new_registration_replaces_the_old_endpoint(kubelet: Kubelet) -> None:
    old = await kubelet.plugin()
    await kubelet.listener.wait_for(4, 4)
    new = await kubelet.plugin(devices(2), name="lpu-new.sock")
    await kubelet.listener.wait_for(2, 2)

    await old.stop()
    await asyncio.wait_for(old.no_open_streams.wait(), 5)

    # The old plugin's stream has ended; the kubelet must not act on it while its reader winds down.
    def still_new() -> bool:
        return kubelet.listener.events[-1] == (NODE, RES, 2, 2) and (
            kubelet.manager.resources()[RES].endpoint == new.socket_path
        )

    await stays_true(still_new, for_seconds=0.3)


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
    await stays_true(lambda: kubelet.listener.events == events, for_seconds=0.3)
