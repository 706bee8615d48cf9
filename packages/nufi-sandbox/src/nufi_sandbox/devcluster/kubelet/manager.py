"""One node's device manager: the kubelet side of device plugins and of the PodResources API."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import structlog

from nufi_mock.kubelet_api import (
    CHECKPOINT_FILE_NAME,
    ENDPOINT_STOP_GRACE_SECONDS,
    HEALTHY,
    KUBELET_SOCKET_NAME,
    PLUGIN_DIAL_TIMEOUT_SECONDS,
    UNHEALTHY,
)

from .allocation import AllocationRequest, allocate_with_plugin
from .assignments import PodAssignment, PodDevices
from .checkpoint import checkpoint_document, write_checkpoint
from .dra_manager import DynamicPod
from .model import (
    AllocationError,
    ContainerAllocation,
    DeviceListener,
    PluginOptions,
    RegistrationError,
    ResourceState,
)
from .plugin_client import PluginEndpoint
from .podresources import pod_resources_services
from .registration import registration_services
from .sockets import AioServer, remove_plugin_sockets, serve_unix, stop_server

_log = structlog.get_logger(__name__)


@dataclass(eq=False)
class _Resource:
    name: str
    devices: dict[str, str] = field(default_factory=dict)
    numa_nodes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    options: PluginOptions = field(default_factory=PluginOptions)
    endpoint: PluginEndpoint | None = None
    watch: asyncio.Task[None] | None = None
    grace: asyncio.Task[None] | None = None

    def snapshot(self) -> ResourceState:
        return ResourceState(
            resource=self.name,
            devices=dict(self.devices),
            numa_nodes=dict(self.numa_nodes),
            endpoint=self.endpoint.socket_path if self.endpoint is not None else None,
            options=self.options,
        )


class DeviceManager:
    """Plays the kubelet device manager of ``node`` inside the running event loop."""

    def __init__(
        self,
        node: str,
        device_plugin_dir: Path,
        pod_resources_socket: Path,
        listener: DeviceListener,
        *,
        stop_grace_seconds: float = ENDPOINT_STOP_GRACE_SECONDS,
        dial_timeout_seconds: float = PLUGIN_DIAL_TIMEOUT_SECONDS,
        dynamic_pods: Callable[[], list[DynamicPod]] = list,
    ) -> None:
        self.node = node
        self.device_plugin_dir = Path(device_plugin_dir).absolute()
        self.kubelet_socket = self.device_plugin_dir / KUBELET_SOCKET_NAME
        self.pod_resources_socket = Path(pod_resources_socket).absolute()
        self._listener = listener
        self._stop_grace_seconds = stop_grace_seconds
        self._dial_timeout_seconds = dial_timeout_seconds
        # The DRA manager's pods, which the PodResources API served here reports too.
        self.dynamic_pods = dynamic_pods
        self._resources: dict[str, _Resource] = {}
        self._pods = PodDevices()
        self._allocate_lock = asyncio.Lock()
        self._registration_server: AioServer | None = None
        self._pod_resources_server: AioServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._running = False

    # -- lifecycle -------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Create the directories, clear stale plugin sockets (as a starting kubelet does) and serve."""
        if self._running:
            raise RuntimeError(f"device manager of node {self.node} is already running")
        self.device_plugin_dir.mkdir(parents=True, exist_ok=True)
        self.pod_resources_socket.parent.mkdir(parents=True, exist_ok=True)
        remove_plugin_sockets(self.device_plugin_dir, keep=[self.pod_resources_socket])
        await self._serve()
        self._running = True
        # Resources left over from before a stop() count down again, as after a kubelet restart.
        for state in self._resources.values():
            self._mark_unhealthy(state)
        self._save_checkpoint()

    async def stop(self) -> None:
        """Stop serving, drop every plugin connection and remove this kubelet's sockets."""
        self._running = False
        await self._stop_servers()
        for state in self._resources.values():
            state.grace = None
            await self._disconnect(state)
        # Watchers and grace timers, including any a finishing watcher started just now.
        for task in list(self._tasks):
            await self._cancel(task)

    async def restart(self) -> None:
        """A kubelet restart: plugin sockets vanish, kubelet.sock comes back, plugins must register again.

        Devices stay counted in capacity but none is allocatable until the plugin is back; without
        re-registration the resource disappears after the stop grace period."""
        if not self._running:
            raise RuntimeError(f"device manager of node {self.node} is not running")
        await self._stop_servers()
        dropped = [state for state in self._resources.values() if state.endpoint is not None]
        for state in dropped:
            await self._disconnect(state)
            self._mark_unhealthy(state)
        remove_plugin_sockets(self.device_plugin_dir, keep=[self.pod_resources_socket])
        await self._serve()
        self._save_checkpoint()
        for state in dropped:
            await self._notify(state)

    async def _serve(self) -> None:
        self._registration_server = await serve_unix(
            self.kubelet_socket, registration_services(self._connect_plugin)
        )
        self._pod_resources_server = await serve_unix(self.pod_resources_socket, pod_resources_services(self))

    async def _stop_servers(self) -> None:
        await stop_server(self._registration_server, self.kubelet_socket)
        await stop_server(self._pod_resources_server, self.pod_resources_socket)
        self._registration_server = None
        self._pod_resources_server = None

    # -- views -----------------------------------------------------------------------------------------

    def resources(self) -> dict[str, ResourceState]:
        return {name: state.snapshot() for name, state in self._resources.items()}

    def pods(self) -> list[PodAssignment]:
        return self._pods.pods()

    def allocations(self) -> list[ContainerAllocation]:
        return self._pods.allocations()

    # -- plugins ---------------------------------------------------------------------------------------

    async def _connect_plugin(self, resource: str, endpoint_name: str) -> None:
        endpoint = await PluginEndpoint.connect(
            resource, self.device_plugin_dir / endpoint_name, dial_timeout=self._dial_timeout_seconds
        )
        if not self._running:
            await endpoint.close()
            raise RegistrationError("kubelet device manager is shutting down")
        state = self._resources.setdefault(resource, _Resource(resource))
        old_endpoint, old_watch = state.endpoint, state.watch
        # Swap first, then close the old connection: its watcher sees it is no longer current and leaves
        # the devices alone.
        state.endpoint = endpoint
        state.options = endpoint.options
        state.watch = self._spawn(self._watch(state, endpoint), f"list-and-watch {resource}")
        grace, state.grace = state.grace, None
        await self._cancel(grace)
        await self._cancel(old_watch)
        if old_endpoint is not None:
            await old_endpoint.close()
        _log.info("device plugin registered", node=self.node, resource=resource, endpoint=endpoint_name)

    async def _watch(self, state: _Resource, endpoint: PluginEndpoint) -> None:
        try:
            async for devices in endpoint.list_and_watch():
                if state.endpoint is not endpoint:
                    return
                state.devices = {device.device_id: device.health for device in devices}
                state.numa_nodes = {
                    device.device_id: device.numa_nodes for device in devices if device.numa_nodes
                }
                self._save_checkpoint()
                await self._notify(state)
        except grpc.aio.AioRpcError as exc:
            _log.info("ListAndWatch failed", node=self.node, resource=state.name, code=str(exc.code()))
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            # The call, not this task, was cancelled: the stream is gone all the same.
        if state.endpoint is endpoint:
            await self._endpoint_stopped(state, endpoint)

    async def _endpoint_stopped(self, state: _Resource, endpoint: PluginEndpoint) -> None:
        _log.info("device plugin disconnected", node=self.node, resource=state.name)
        state.endpoint = None
        state.watch = None
        await endpoint.close()
        self._mark_unhealthy(state)
        self._save_checkpoint()
        await self._notify(state)

    def _mark_unhealthy(self, state: _Resource) -> None:
        state.devices = dict.fromkeys(state.devices, UNHEALTHY)
        if state.grace is None and self._running:
            state.grace = self._spawn(self._expire(state), f"stop grace {state.name}")

    async def _expire(self, state: _Resource) -> None:
        await asyncio.sleep(self._stop_grace_seconds)
        state.grace = None
        if state.endpoint is not None or self._resources.get(state.name) is not state:
            return
        del self._resources[state.name]
        self._save_checkpoint()
        _log.info("device plugin resource removed", node=self.node, resource=state.name)
        await self._emit(state.name, 0, 0)

    async def _disconnect(self, state: _Resource) -> None:
        endpoint, watch = state.endpoint, state.watch
        state.endpoint = None
        state.watch = None
        await self._cancel(watch)
        if endpoint is not None:
            await endpoint.close()

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.create_task(work, name=f"{self.node}: {name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @staticmethod
    async def _cancel(task: asyncio.Task[None] | None) -> None:
        if task is None or task is asyncio.current_task():
            return
        task.cancel()
        # asyncio.wait neither raises the task's outcome nor swallows a cancellation of the caller.
        await asyncio.wait([task])
        if not task.cancelled() and task.exception() is not None:
            _log.warning("background task failed", task=task.get_name(), error=repr(task.exception()))

    async def _notify(self, state: _Resource) -> None:
        snapshot = state.snapshot()
        await self._emit(state.name, snapshot.capacity, snapshot.allocatable)

    async def _emit(self, resource: str, capacity: int, allocatable: int) -> None:
        try:
            await self._listener.devices_changed(self.node, resource, capacity, allocatable)
        except Exception:
            # A failing listener must not kill the watcher; the next update retries anyway.
            _log.exception("device listener failed", node=self.node, resource=resource)

    # -- allocation ------------------------------------------------------------------------------------

    async def allocate(
        self, *, pod_namespace: str, pod_name: str, pod_uid: str, container: str, resource: str, count: int
    ) -> ContainerAllocation:
        """Assign ``count`` healthy free devices of ``resource`` to a container through its plugin.

        Returns the existing assignment when the container already holds this resource."""
        request = AllocationRequest(pod_namespace, pod_name, pod_uid, container, resource, count)
        async with self._allocate_lock:
            existing = self._pods.get(pod_uid, container, resource)
            if existing is not None:
                if len(existing.device_ids) != count:
                    raise AllocationError(
                        f"container {container!r} of pod {pod_namespace}/{pod_name} already holds "
                        f"{len(existing.device_ids)} {resource}, cannot change it to {count}"
                    )
                return existing
            state, endpoint, available = self._available(request)
            allocation = await allocate_with_plugin(endpoint, request, available, state.numa_nodes)
            self._pods.add(allocation)
            self._save_checkpoint()
            return allocation

    def _available(self, request: AllocationRequest) -> tuple[_Resource, PluginEndpoint, list[str]]:
        """The resource, its plugin and its healthy unassigned devices, or AllocationError."""
        resource, count = request.resource, request.count
        state = self._resources.get(resource)
        if count < 1:
            raise AllocationError(f"device count for {resource} must be at least 1, got {count}")
        if state is None:
            raise AllocationError(f"cannot allocate unregistered device {resource}")
        endpoint = state.endpoint
        if endpoint is None:
            raise AllocationError(
                f"device plugin for {resource} is not connected; it must register again before "
                "devices can be allocated"
            )
        in_use = self._pods.devices_in_use(resource)
        available = sorted(
            device for device, health in state.devices.items() if health == HEALTHY and device not in in_use
        )
        if len(available) < count:
            raise AllocationError(
                f"requested number of devices unavailable for {resource}. "
                f"Requested: {count}, Available: {len(available)}"
            )
        return state, endpoint, available

    def release(self, pod_uid: str) -> None:
        """Free every device the pod holds."""
        if self._pods.release(pod_uid):
            self._save_checkpoint()

    # -- persistence -----------------------------------------------------------------------------------

    def _save_checkpoint(self) -> None:
        if not self._running:
            return
        registered = {name: list(state.devices) for name, state in self._resources.items()}
        document = checkpoint_document(self._pods.allocations(), registered)
        try:
            write_checkpoint(self.device_plugin_dir / CHECKPOINT_FILE_NAME, document)
        except OSError:
            _log.warning("could not write device manager checkpoint", node=self.node)
