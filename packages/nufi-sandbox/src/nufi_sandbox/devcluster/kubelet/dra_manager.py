"""One node's DRA manager, the kubelet side of DRA: DRA drivers registered through the plugin watcher,
claims prepared before a pod's containers start and unprepared when no pod of the node uses them, and
what the PodResources API reports of them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from nufi_mock.kubelet_api import DRA_PLUGIN_SERVICE, DRA_PLUGIN_TYPE

from .dra_claims import (
    ClaimNotReady,
    PreparedClaim,
    PreparedDevice,
    allocated_drivers,
    check_usable,
    container_devices,
    pod_claim_names,
)
from .dra_client import DraCallError, DraPluginClient
from .model import RegistrationError
from .plugin_watcher import PluginWatcher

_log = structlog.get_logger(__name__)

Obj = dict[str, Any]
ClaimLookup = Callable[[str, str], Obj | None]
"""(namespace, name) -> the ResourceClaim as the API serves it, or None."""


@dataclass(frozen=True)
class ContainerClaim:
    """The devices of one claim one container holds, as PodResources reports them."""

    claim: PreparedClaim
    devices: tuple[PreparedDevice, ...]


@dataclass(frozen=True)
class DynamicPod:
    namespace: str
    name: str
    uid: str
    containers: dict[str, list[ContainerClaim]]


class DraManager:
    def __init__(self, node: str, registry: Path, claims: ClaimLookup) -> None:
        self.node = node
        self._claims = claims
        self._plugins: dict[str, DraPluginClient] = {}
        self._prepared: dict[str, PreparedClaim] = {}
        self._pods: dict[str, DynamicPod] = {}
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.watcher = PluginWatcher(registry, {DRA_PLUGIN_TYPE: (self._register, self._deregister)})

    def start(self) -> None:
        self.watcher.start()

    async def stop(self) -> None:
        await self.watcher.stop()
        if self._tasks:
            await asyncio.wait(list(self._tasks))

    def drivers(self) -> list[str]:
        return sorted(self._plugins)

    def pods(self) -> list[DynamicPod]:
        return list(self._pods.values())

    # -- registration ----------------------------------------------------------------------------------

    async def _register(self, info: Any, socket: Path) -> None:
        if DRA_PLUGIN_SERVICE not in list(info.supported_versions):
            raise RegistrationError(
                f"DRA plugin {info.name} supports none of the services this kubelet calls: "
                f"{list(info.supported_versions)}, want {DRA_PLUGIN_SERVICE}"
            )
        endpoint = Path(str(info.endpoint)) if info.endpoint else socket
        old = self._plugins.get(str(info.name))
        self._plugins[str(info.name)] = DraPluginClient(str(info.name), endpoint)
        if old is not None:
            await old.close()
        _log.info("DRA driver registered", node=self.node, driver=info.name, endpoint=str(endpoint))

    async def _deregister(self, info: Any) -> None:
        client = self._plugins.pop(str(info.name), None)
        if client is not None:
            await client.close()
            _log.info("DRA driver deregistered", node=self.node, driver=info.name)

    # -- claims ----------------------------------------------------------------------------------------

    async def prepare_pod(self, pod: Obj) -> dict[str, list[PreparedDevice]]:
        """Prepare every claim of the pod not prepared yet; the devices of each container by name.
        ClaimNotReady when a claim or its driver is not ready: nothing of the pod starts."""
        meta = pod["metadata"]
        names = pod_claim_names(pod)
        if not names:
            return {}
        async with self._lock:
            claims = [check_usable(self._claims(meta["namespace"], name), pod, name) for name in names]
            await self._prepare_new([c for c in claims if c["metadata"]["uid"] not in self._prepared])
            by_name = {c["metadata"]["name"]: self._prepared[c["metadata"]["uid"]] for c in claims}
            for prepared in by_name.values():
                prepared.pods.add(meta["uid"])
            containers = pod["spec"].get("containers") or []
            devices = {str(c["name"]): container_devices(pod, c, by_name) for c in containers}
            self._pods[meta["uid"]] = DynamicPod(
                meta["namespace"], meta["name"], meta["uid"], _container_claims(pod, devices, by_name)
            )
            return devices

    async def _prepare_new(self, claims: Sequence[Obj]) -> None:
        by_driver: dict[str, list[Obj]] = {}
        for claim in claims:
            for driver in allocated_drivers(claim):
                by_driver.setdefault(driver, []).append(claim)
        prepared: dict[str, PreparedClaim] = {}
        for claim in claims:
            namespace, uid, name = _ref(claim)
            prepared[uid] = PreparedClaim(namespace, name, uid)
        for driver, asked in by_driver.items():
            client = self._plugins.get(driver)
            if client is None:
                raise ClaimNotReady(f"DRA driver {driver} is not registered")
            try:
                replies = await client.prepare([_ref(c) for c in asked])
            except DraCallError as exc:
                raise ClaimNotReady(f"NodePrepareResources failed: {exc}") from None
            for claim in asked:
                uid = claim["metadata"]["uid"]
                reply = replies.get(uid)
                if reply is None or reply.error:
                    problem = reply.error if reply is not None else "claim left out of the answer"
                    raise ClaimNotReady(f"prepare dynamic resources: {driver}: claim {uid}: {problem}")
                prepared[uid].devices += [_device(driver, d) for d in reply.devices]
        self._prepared.update(prepared)

    def release(self, pod_uid: str) -> None:
        """The pod is gone from the node: claims no other pod uses are unprepared in the background."""
        if self._pods.pop(pod_uid, None) is None:
            return
        unused = []
        for uid, claim in list(self._prepared.items()):
            claim.pods.discard(pod_uid)
            if not claim.pods:
                unused.append(self._prepared.pop(uid))
        if unused:
            task = asyncio.create_task(self._unprepare(unused), name=f"{self.node}: unprepare")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _unprepare(self, claims: Sequence[PreparedClaim]) -> None:
        for driver in sorted({d.driver for c in claims for d in c.devices}):
            client = self._plugins.get(driver)
            mine = [c for c in claims if any(d.driver == driver for d in c.devices)]
            asked = [(c.namespace, c.uid, c.name) for c in mine]
            if client is None:
                _log.warning("claims left prepared: driver gone", node=self.node, driver=driver)
                continue
            try:
                await client.unprepare(asked)
            except DraCallError as exc:
                _log.warning("NodeUnprepareResources failed", node=self.node, driver=driver, error=str(exc))


def _ref(claim: Obj) -> tuple[str, str, str]:
    meta = claim["metadata"]
    return (str(meta["namespace"]), str(meta["uid"]), str(meta["name"]))


def _device(driver: str, reply: Any) -> PreparedDevice:
    return PreparedDevice(
        driver=driver,
        pool=str(reply.pool_name),
        device=str(reply.device_name),
        requests=tuple(str(r) for r in reply.request_names),
        cdi_ids=tuple(str(i) for i in reply.cdi_device_ids),
    )


def _container_claims(
    pod: Obj, devices: dict[str, list[PreparedDevice]], by_name: dict[str, PreparedClaim]
) -> dict[str, list[ContainerClaim]]:
    out: dict[str, list[ContainerClaim]] = {}
    for container, held in devices.items():
        for claim in by_name.values():
            mine = tuple(d for d in held if d in claim.devices)
            if mine:
                out.setdefault(container, []).append(ContainerClaim(claim, mine))
    return out
