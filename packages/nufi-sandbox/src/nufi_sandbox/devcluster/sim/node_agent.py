"""One node's kubelet, node side: status heartbeats, the node Lease, pod IPs, the device manager and the
DRA manager."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.kubelet import DeviceManager
from nufi_sandbox.devcluster.kubelet.dra_manager import DraManager
from nufi_sandbox.devcluster.sim.meta import Obj, now, now_micro
from nufi_sandbox.devcluster.sim.nodes import node_conditions, node_ip
from nufi_sandbox.devcluster.storage.store import Store

log = logging.getLogger(__name__)

LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40


@dataclass(frozen=True)
class KubeletPaths:
    device_plugin_dir: Path
    pod_resources_socket: Path
    plugins_registry: Path
    """Where DRA drivers put their registration socket (the kubelet's plugins_registry)."""
    plugins_dir: Path
    """Where kubelet plugins serve their own sockets (the kubelet's plugins)."""
    cdi_dir: Path
    """The CDI specs drivers write and the node's runtime reads."""

    @classmethod
    def under(cls, state_dir: Path, node: str) -> KubeletPaths:
        base = state_dir / "nodes" / node
        return cls(
            base / "device-plugins",
            base / "pod-resources" / "kubelet.sock",
            base / "plugins_registry",
            base / "plugins",
            base / "cdi",
        )


class NodeAgent:
    def __init__(
        self,
        store: Store,
        node: str,
        index: int,
        *,
        paths: KubeletPaths | None,
        heartbeat_seconds: float = 10.0,
        device_stop_grace_seconds: float = 300.0,
    ) -> None:
        self.store = store
        self.node = node
        self.index = index
        self.paths = paths
        self._heartbeat_seconds = heartbeat_seconds
        self._nodes = store.rt("", "v1", "nodes")
        self._leases = store.rt("coordination.k8s.io", "v1", "leases")
        self._next_ip = 2
        self._heartbeat: asyncio.Task[None] | None = None
        self.devices: DeviceManager | None = None
        self.dra: DraManager | None = None
        if paths is not None:
            self.dra = DraManager(node, paths.plugins_registry, self._claim)
            self.devices = DeviceManager(
                node,
                paths.device_plugin_dir,
                paths.pod_resources_socket,
                self,
                stop_grace_seconds=device_stop_grace_seconds,
                dynamic_pods=self.dra.pods,
            )

    async def start(self) -> None:
        if self.devices is not None:
            await self.devices.start()
        if self.dra is not None:
            self.dra.start()
        self._beat()
        self._heartbeat = asyncio.create_task(self._beat_forever(), name=f"heartbeat {self.node}")

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
            self._heartbeat = None
        if self.devices is not None:
            await self.devices.stop()
        if self.dra is not None:
            await self.dra.stop()

    # -- addresses -----------------------------------------------------------------------------------

    @property
    def host_ip(self) -> str:
        node = self.store.find(self._nodes, "", self.node)
        for address in (node or {}).get("status", {}).get("addresses") or []:
            if address.get("type") == "InternalIP":
                return str(address["address"])
        return node_ip(self.index)

    def next_pod_ip(self) -> str:
        """The next free address of this node's /24, skipping those its live pods hold."""
        taken = {
            pod.get("status", {}).get("podIP")
            for pod in self.store.all_of("", "pods")
            if pod.get("spec", {}).get("nodeName") == self.node
        }
        for _ in range(253):
            candidate = f"10.244.{self.index}.{self._next_ip}"
            self._next_ip = self._next_ip + 1 if self._next_ip < 254 else 2
            if candidate not in taken:
                return candidate
        raise RuntimeError(f"node {self.node} has no free pod IP left")

    # -- devices -------------------------------------------------------------------------------------

    def device_resources(self) -> set[str]:
        return set(self.devices.resources()) if self.devices is not None else set()

    def release(self, pod_uid: str) -> None:
        if self.devices is not None:
            self.devices.release(pod_uid)
        if self.dra is not None:
            self.dra.release(pod_uid)

    def _claim(self, namespace: str, name: str) -> Obj | None:
        """A ResourceClaim as the kubelet reads it from the API."""
        return self.store.find(self.store.rt("resource.k8s.io", "v1", "resourceclaims"), namespace, name)

    async def devices_changed(self, node: str, resource: str, capacity: int, allocatable: int) -> None:
        """Device plugin counts land in node status the way the kubelet's status update puts them."""

        def apply(obj: Obj) -> None:
            status = obj.setdefault("status", {})
            for field, value in (("capacity", capacity), ("allocatable", allocatable)):
                counts = status.setdefault(field, {})
                if capacity == 0 and allocatable == 0:
                    counts.pop(resource, None)
                else:
                    counts[resource] = str(value)

        try:
            self.store.mutate(self._nodes, "", node, apply, subresource="status")
        except errors.ApiError as exc:
            log.info("node %s status not updated for %s: %s", node, resource, exc.message)

    # -- heartbeats ----------------------------------------------------------------------------------

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_seconds)
            try:
                self._beat()
            except errors.ApiError as exc:
                log.info("heartbeat of node %s failed: %s", self.node, exc.message)

    def _beat(self) -> None:
        node = self.store.find(self._nodes, "", self.node)
        if node is None:
            return
        stamp = now()

        def refresh(obj: Obj) -> None:
            status = obj.setdefault("status", {})
            if not status.get("conditions"):
                status["conditions"] = node_conditions(stamp)
            for condition in status["conditions"]:
                condition["lastHeartbeatTime"] = stamp

        self.store.mutate(self._nodes, "", self.node, refresh, subresource="status")
        self._renew_lease(node)

    def _renew_lease(self, node: Obj) -> None:
        renew = now_micro()
        lease = self.store.find(self._leases, LEASE_NAMESPACE, self.node)
        if lease is None:
            self.store.create(
                self._leases,
                LEASE_NAMESPACE,
                {
                    "metadata": {
                        "name": self.node,
                        "ownerReferences": [
                            {
                                "apiVersion": "v1",
                                "kind": "Node",
                                "name": self.node,
                                "uid": node["metadata"]["uid"],
                            }
                        ],
                    },
                    "spec": {
                        "holderIdentity": self.node,
                        "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                        "renewTime": renew,
                    },
                },
            )
            return

        def renewed(obj: Obj) -> None:
            obj.setdefault("spec", {})["renewTime"] = renew

        self.store.mutate(self._leases, LEASE_NAMESPACE, self.node, renewed)
