"""Runs a NodeAgent for every Node object, whoever created it, and stops it when the node goes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from nufi_sandbox.devcluster.sim.controller import Controller
from nufi_sandbox.devcluster.sim.meta import is_deleting, name_of
from nufi_sandbox.devcluster.sim.node_agent import KubeletPaths, NodeAgent
from nufi_sandbox.devcluster.sim.nodes import NodeSpec
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent


class NodeManager(Controller[str]):
    name = "node-agents"

    def __init__(
        self,
        store: Store,
        specs: Mapping[str, NodeSpec],
        *,
        state_dir: Path | None,
        on_ready: Callable[[str], None],
        heartbeat_seconds: float,
        device_stop_grace_seconds: float,
    ) -> None:
        super().__init__(store)
        self.agents: dict[str, NodeAgent] = {}
        self._specs = specs
        self._state_dir = state_dir
        self._on_ready = on_ready
        self._heartbeat_seconds = heartbeat_seconds
        self._device_grace = device_stop_grace_seconds
        self._nodes = store.rt("", "v1", "nodes")
        self._indexes = {name: i for i, name in enumerate(specs, start=1)}

    def paths(self, node: str) -> KubeletPaths | None:
        spec = self._specs.get(node)
        if self._state_dir is None or spec is None or not spec.device_plugins:
            return None
        return KubeletPaths.under(self._state_dir, node)

    def index(self, node: str) -> int:
        if node not in self._indexes:
            self._indexes[node] = max(self._indexes.values(), default=0) + 1
        return self._indexes[node]

    def keys_for(self, event: WatchEvent) -> Iterable[str]:
        if event.rt_key == ("", "nodes"):
            yield name_of(event.object)

    def all_keys(self) -> Iterable[str]:
        for node in self.store.all_of("", "nodes"):
            yield name_of(node)

    async def reconcile(self, key: str) -> None:
        name = key
        node = self.store.find(self._nodes, "", name)
        if node is None or is_deleting(node):
            agent = self.agents.pop(name, None)
            if agent is not None:
                await agent.stop()
            return
        await self.ensure(name)

    async def ensure(self, name: str) -> NodeAgent:
        """The running agent of node ``name``, started now if it was not running yet."""
        if name in self.agents:
            return self.agents[name]
        agent = NodeAgent(
            self.store,
            name,
            self.index(name),
            paths=self.paths(name),
            heartbeat_seconds=self._heartbeat_seconds,
            device_stop_grace_seconds=self._device_grace,
        )
        await agent.start()
        self.agents[name] = agent
        self._on_ready(name)
        return agent

    async def stop(self) -> None:
        await super().stop()
        agents, self.agents = list(self.agents.values()), {}
        for agent in agents:
            await agent.stop()
