"""The dev cluster's moving parts: nodes with kubelets, the scheduler and the workload controllers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.runtime.map import RuntimeMap
from nufi_sandbox.devcluster.runtime.pods import ProcessRuntime
from nufi_sandbox.devcluster.sim.controller import Controller
from nufi_sandbox.devcluster.sim.daemonset import DaemonSetController
from nufi_sandbox.devcluster.sim.deployment import DeploymentController
from nufi_sandbox.devcluster.sim.endpointslice import EndpointSliceController
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.kubelet import Kubelet
from nufi_sandbox.devcluster.sim.meta import Obj
from nufi_sandbox.devcluster.sim.node_agent import NodeAgent
from nufi_sandbox.devcluster.sim.node_manager import NodeManager
from nufi_sandbox.devcluster.sim.nodes import NodeSpec, default_node_specs, node_object
from nufi_sandbox.devcluster.sim.notebook import NotebookController
from nufi_sandbox.devcluster.sim.replicaset import ReplicaSetController
from nufi_sandbox.devcluster.sim.resourceclaim import ResourceClaimController
from nufi_sandbox.devcluster.sim.scheduler import Scheduler
from nufi_sandbox.devcluster.sim.statefulset import StatefulSetController
from nufi_sandbox.devcluster.storage.store import Store


class Simulation:
    """Everything a real cluster runs besides the API server, inside the store's event loop.

    ``state_dir`` holds each node's kubelet sockets (``nodes/<node>/device-plugins/kubelet.sock`` and
    ``nodes/<node>/pod-resources/kubelet.sock``); without it no node serves device plugins. With a
    ``runtime_map``, containers whose image it maps run as local processes (work dirs under
    ``state_dir/pods``).
    """

    def __init__(
        self,
        store: Store,
        *,
        nodes: Sequence[NodeSpec] | None = None,
        state_dir: Path | None = None,
        pod_stop_seconds: float = 0.2,
        heartbeat_seconds: float = 10.0,
        scheduler_resync_seconds: float = 1.0,
        device_stop_grace_seconds: float = 300.0,
        runtime_map: RuntimeMap | None = None,
    ) -> None:
        self.store = store
        self.specs = {spec.name: spec for spec in (default_node_specs() if nodes is None else nodes)}
        self.state_dir = state_dir
        events = EventRecorder(store)
        self.node_manager = NodeManager(
            store,
            self.specs,
            state_dir=state_dir,
            on_ready=self._node_ready,
            heartbeat_seconds=heartbeat_seconds,
            device_stop_grace_seconds=device_stop_grace_seconds,
        )
        self.runtime = ProcessRuntime(runtime_map, state_dir) if runtime_map is not None else None
        self.kubelet = Kubelet(
            store,
            self.node_manager.agents,
            events,
            pod_stop_seconds=pod_stop_seconds,
            runtime=self.runtime,
        )
        self.scheduler = Scheduler(store, events, resync_seconds=scheduler_resync_seconds)
        self._controllers: list[Controller[Any]] = [
            self.node_manager,
            self.kubelet,
            self.scheduler,
            DeploymentController(store, events),
            ReplicaSetController(store, events),
            StatefulSetController(store, events),
            DaemonSetController(store, events),
            EndpointSliceController(store),
            NotebookController(store, events),
            ResourceClaimController(store),
        ]
        self._running = False

    async def start(self) -> None:
        if self._running:
            return
        self.store.graceful_pod_deletion = True
        self.create_nodes(list(self.specs.values()))
        # Kubelet sockets exist once start() returns, so device plugins can register right away.
        for name in self.specs:
            await self.node_manager.ensure(name)
        for controller in self._controllers:
            controller.start()
        self._running = True

    async def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        for controller in reversed(self._controllers):
            await controller.stop()
        # With no kubelet left, deleted pods must go at once again.
        self.store.graceful_pod_deletion = False

    def create_nodes(self, specs: Sequence[NodeSpec]) -> list[Obj]:
        """Register nodes as their kubelets would; a node that already exists is left as it is."""
        created = []
        nodes = self.store.rt("", "v1", "nodes")
        for spec in specs:
            self.specs.setdefault(spec.name, spec)
            try:
                created.append(
                    self.store.create(nodes, "", node_object(spec, self.node_manager.index(spec.name)))
                )
            except errors.ApiError as exc:
                if exc.reason != "AlreadyExists":
                    raise
        return created

    def agent(self, node: str) -> NodeAgent | None:
        return self.node_manager.agents.get(node)

    async def restart_kubelet(self, node: str) -> bool:
        """What a kubelet restart does to device plugins: sockets wiped, kubelet.sock created anew."""
        agent = self.agent(node)
        if agent is None or agent.devices is None:
            return False
        await agent.devices.restart()
        return True

    def node_sockets(self) -> dict[str, dict[str, str]]:
        """Kubelet socket paths of every node that serves device plugins, by node name."""
        out = {}
        for name in self.specs:
            paths = self.node_manager.paths(name)
            if paths is not None:
                out[name] = {
                    "device_plugin_dir": str(paths.device_plugin_dir),
                    "kubelet_socket": str(paths.device_plugin_dir / "kubelet.sock"),
                    "pod_resources_socket": str(paths.pod_resources_socket),
                    "plugins_registry_dir": str(paths.plugins_registry),
                    "plugins_dir": str(paths.plugins_dir),
                    "cdi_dir": str(paths.cdi_dir),
                }
        return out

    def local_port(self, pod_uid: str, port: int) -> int | None:
        """The 127.0.0.1 port a pod's local process serves `port` on (for the services proxy)."""
        return self.runtime.local_port(pod_uid, port) if self.runtime is not None else None

    def _node_ready(self, node: str) -> None:
        self.kubelet.node_ready(node)
