"""The kubelets' pod side: admit bound pods (allocating devices, preparing DRA claims), run them, keep
readiness, stop them.

One controller serves every node; it hands node-specific work to that node's NodeAgent. Status writes
start from the stored object and touch only what the kubelet owns, so conditions patched in by others
(readiness gates) survive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Mapping

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.kubelet import AllocationError
from nufi_sandbox.devcluster.kubelet.dra_claims import ClaimNotReady
from nufi_sandbox.devcluster.runtime.cdi import CdiError, cdi_env
from nufi_sandbox.devcluster.runtime.container import ContainerProcess
from nufi_sandbox.devcluster.runtime.pods import PodProcesses, ProcessRuntime
from nufi_sandbox.devcluster.sim.controller import Controller, ObjectKey
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import Obj, is_deleting, name_of, namespace_of, now, uid_of
from nufi_sandbox.devcluster.sim.node_agent import NodeAgent
from nufi_sandbox.devcluster.sim.pods import container_device_counts, is_terminal
from nufi_sandbox.devcluster.sim.podstatus import (
    apply_container_fields,
    set_admission_failure,
    set_readiness,
    set_running,
)
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

log = logging.getLogger(__name__)

UNEXPECTED_ADMISSION_ERROR = "UnexpectedAdmissionError"
FAILED_PREPARE = "FailedPrepareDynamicResources"
# How soon a pod whose claims could not be prepared is tried again.
PREPARE_RETRY_SECONDS = 1.0


def _node_of(obj: Obj | None) -> str:
    return str((obj or {}).get("spec", {}).get("nodeName") or "")


class Kubelet(Controller[ObjectKey]):
    name = "kubelet"

    def __init__(
        self,
        store: Store,
        agents: Mapping[str, NodeAgent],
        events: EventRecorder,
        *,
        pod_stop_seconds: float = 0.2,
        runtime: ProcessRuntime | None = None,
    ) -> None:
        super().__init__(store)
        self._agents = agents
        self._events = events
        self._stop_seconds = pod_stop_seconds
        self._pods = store.rt("", "v1", "pods")
        self._started: set[str] = set()
        self._uids: dict[tuple[str, str], str] = {}
        self._stopping: dict[str, asyncio.Task[None]] = {}
        self.runtime = runtime
        self._reaping: set[asyncio.Task[None]] = set()

    def keys_for(self, event: WatchEvent) -> Iterable[ObjectKey]:
        if event.rt_key == ("", "pods") and (_node_of(event.object) or _node_of(event.old)):
            yield (event.namespace, name_of(event.object))

    def all_keys(self) -> Iterable[ObjectKey]:
        for pod in self.store.all_of("", "pods"):
            if _node_of(pod):
                yield (namespace_of(pod), name_of(pod))

    def node_ready(self, node: str) -> None:
        """A node's agent just started: pods already bound to it can run now."""
        for pod in self.store.all_of("", "pods"):
            if _node_of(pod) == node:
                self.queue.add((namespace_of(pod), name_of(pod)))

    async def stop(self) -> None:
        await super().stop()
        for task in list(self._stopping.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._stopping.clear()
        for task in list(self._reaping):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.runtime is not None:
            # No process may outlive the simulated kubelets.
            await self.runtime.stop_all()

    async def reconcile(self, key: ObjectKey) -> None:
        namespace, name = key
        pod = self.store.find(self._pods, namespace, name)
        previous = self._uids.pop((namespace, name), None)
        if previous is not None and (pod is None or uid_of(pod) != previous):
            self._forget(previous)
        if pod is None:
            return
        uid = uid_of(pod)
        self._uids[(namespace, name)] = uid
        agent = self._agents.get(_node_of(pod))
        if agent is None:
            self._collect_orphan(pod)
            return
        if is_deleting(pod):
            self._begin_stop(pod, agent)
        elif is_terminal(pod):
            agent.release(uid)
            self._reap(uid)
        elif uid in self._started:
            self._refresh_readiness(pod)
        elif pod.get("status", {}).get("phase") == "Running":
            self._started.add(uid)  # already running before this kubelet started
            self._refresh_readiness(pod)
        else:
            await self._admit(pod, agent)

    # -- starting ------------------------------------------------------------------------------------

    async def _admit(self, pod: Obj, agent: NodeAgent) -> None:
        namespace, name, uid = namespace_of(pod), name_of(pod), uid_of(pod)
        self._started.add(uid)
        device_env: dict[str, dict[str, str]] = {}
        if not await self._allocate_devices(pod, agent, device_env):
            return
        if not await self._prepare_claims(pod, agent, device_env):
            return
        current = self.store.find(self._pods, namespace, name)
        if current is None or uid_of(current) != uid or is_deleting(current):
            agent.release(uid)
            if current is not None and uid_of(current) == uid:
                self.queue.add((namespace, name))
            return
        pod_ip, host_ip, stamp = agent.next_pod_ip(), agent.host_ip, now()
        processes = None
        if self.runtime is not None:
            processes = self.runtime.launch(
                current,
                pod_ip=pod_ip,
                device_env=device_env,
                on_status=self._container_changed,
                on_event=lambda obj, kind, reason, message: self._events.record(
                    obj, kind, reason, message, component="kubelet", host=agent.node
                ),
            )

        def running(obj: Obj) -> None:
            status = obj.setdefault("status", {})
            set_running(status, obj, pod_ip=pod_ip, host_ip=host_ip, now=stamp)
            if processes is not None:
                for container_name, process in processes.containers.items():
                    apply_container_fields(status, container_name, process.status_fields())
                set_readiness(status, obj.get("spec", {}), stamp)

        started = self.store.mutate(self._pods, namespace, name, running, subresource="status")
        for container in started.get("spec", {}).get("containers") or []:
            self._events.record(
                started,
                "Normal",
                "Started",
                f"Started container {container['name']}",
                component="kubelet",
                host=agent.node,
            )

    async def _allocate_devices(self, pod: Obj, agent: NodeAgent, env: dict[str, dict[str, str]]) -> bool:
        """Allocate the device plugin resources each container asks for, adding what Allocate returned to
        its env; False when that failed and the pod was rejected."""
        if agent.devices is None:
            return True
        served = agent.device_resources()
        try:
            for container in pod.get("spec", {}).get("containers") or []:
                for resource, count in container_device_counts(container, served).items():
                    allocation = await agent.devices.allocate(
                        pod_namespace=namespace_of(pod),
                        pod_name=name_of(pod),
                        pod_uid=uid_of(pod),
                        container=container["name"],
                        resource=resource,
                        count=count,
                    )
                    env.setdefault(container["name"], {}).update(allocation.envs)
        except AllocationError as exc:
            agent.release(uid_of(pod))
            self._reject(pod, f"Allocate failed due to {exc}, which is unexpected")
            return False
        return True

    async def _prepare_claims(self, pod: Obj, agent: NodeAgent, env: dict[str, dict[str, str]]) -> bool:
        """Prepare the pod's DRA claims and add their CDI devices' env to each container's; False when
        they are not ready yet (an event says why; the pod is tried again shortly, as the kubelet does)."""
        if agent.dra is None or agent.paths is None:
            return True
        try:
            held = await agent.dra.prepare_pod(pod)
            for container, devices in held.items():
                ids = [cdi for device in devices for cdi in device.cdi_ids]
                if ids:
                    env.setdefault(container, {}).update(cdi_env(agent.paths.cdi_dir, ids))
        except (ClaimNotReady, CdiError) as exc:
            agent.release(uid_of(pod))
            self._started.discard(uid_of(pod))
            reason = str(exc)
            self._events.record(pod, "Warning", FAILED_PREPARE, reason, component="kubelet", host=agent.node)
            self.queue.add_after((namespace_of(pod), name_of(pod)), PREPARE_RETRY_SECONDS)
            return False
        return True

    def _container_changed(self, processes: PodProcesses, process: ContainerProcess) -> None:
        """A mapped container started, exited, restarted or changed readiness: its status follows."""
        fields = process.status_fields()
        stamp = now()

        def apply(obj: Obj) -> None:
            if uid_of(obj) != processes.uid or obj.get("status", {}).get("phase") != "Running":
                return
            status = obj["status"]
            apply_container_fields(status, process.plan.name, fields)
            set_readiness(status, obj.get("spec", {}), stamp)
            phase = _finished_phase(status, processes)
            if phase is not None:
                status["phase"] = phase

        with contextlib.suppress(errors.ApiError):
            self.store.mutate(self._pods, processes.namespace, processes.name, apply, subresource="status")

    def _reject(self, pod: Obj, message: str) -> None:
        def rejected(obj: Obj) -> None:
            set_admission_failure(
                obj.setdefault("status", {}), UNEXPECTED_ADMISSION_ERROR, f"Pod was rejected: {message}"
            )

        try:
            self.store.mutate(self._pods, namespace_of(pod), name_of(pod), rejected, subresource="status")
        except errors.ApiError:
            return
        self._events.record(
            pod, "Warning", UNEXPECTED_ADMISSION_ERROR, message, component="kubelet", host=_node_of(pod)
        )

    def _refresh_readiness(self, pod: Obj) -> None:
        if pod.get("status", {}).get("phase") != "Running":
            return
        stamp = now()

        def readiness(obj: Obj) -> None:
            set_readiness(obj.setdefault("status", {}), obj.get("spec", {}), stamp)

        self.store.mutate(self._pods, namespace_of(pod), name_of(pod), readiness, subresource="status")

    # -- stopping ------------------------------------------------------------------------------------

    def _begin_stop(self, pod: Obj, agent: NodeAgent) -> None:
        uid = uid_of(pod)
        if uid in self._stopping:
            return
        grace = pod["metadata"].get("deletionGracePeriodSeconds")
        delay = self._stop_seconds if grace is None else min(self._stop_seconds, float(grace))
        process_grace = None
        if self.runtime is not None and self.runtime.pod(uid) is not None:
            # A pod with processes is gone once they are: SIGTERM, then SIGKILL after its grace period.
            process_grace = 30.0 if grace is None else float(grace)
            processes = self.runtime.pod(uid)
            for container in processes.containers if processes is not None else ():
                self._events.record(
                    pod,
                    "Normal",
                    "Killing",
                    f"Stopping container {container}",
                    component="kubelet",
                    host=agent.node,
                )
        self._stopping[uid] = asyncio.create_task(
            self._finish_stop(namespace_of(pod), name_of(pod), uid, agent, delay, process_grace),
            name=f"stop pod {namespace_of(pod)}/{name_of(pod)}",
        )

    async def _finish_stop(
        self,
        namespace: str,
        name: str,
        uid: str,
        agent: NodeAgent,
        delay: float,
        process_grace: float | None,
    ) -> None:
        try:
            if process_grace is not None and self.runtime is not None:
                await self.runtime.stop_pod(uid, process_grace)
            else:
                await asyncio.sleep(delay)
            agent.release(uid)
            with contextlib.suppress(errors.ApiError):
                self.store.delete(self._pods, namespace, name, grace_period=0, precondition_uid=uid)
        finally:
            self._stopping.pop(uid, None)
            self._started.discard(uid)

    def _collect_orphan(self, pod: Obj) -> None:
        """A terminating pod whose node is gone would wait forever; the pod GC deletes it."""
        if not is_deleting(pod):
            return
        if self.store.find(self.store.rt("", "v1", "nodes"), "", _node_of(pod)) is not None:
            return
        with contextlib.suppress(errors.ApiError):
            self.store.delete(
                self._pods, namespace_of(pod), name_of(pod), grace_period=0, precondition_uid=uid_of(pod)
            )

    def _forget(self, uid: str) -> None:
        self._started.discard(uid)
        for agent in self._agents.values():
            agent.release(uid)
        self._reap(uid)

    def _reap(self, uid: str) -> None:
        """Stop what is left of a pod's processes (a force-deleted pod, or one that has finished)."""
        if self.runtime is None or self.runtime.pod(uid) is None or uid in self._stopping:
            return
        task = asyncio.create_task(self.runtime.stop_pod(uid, 0.0), name=f"reap pod {uid}")
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)


def _finished_phase(status: Obj, processes: PodProcesses) -> str | None:
    """Succeeded or Failed once every container is a process that ended for good, else None."""
    statuses = status.get("containerStatuses") or []
    if len(statuses) != len(processes.containers):
        return None  # simulated containers never end
    codes = []
    for container in statuses:
        terminated = (container.get("state") or {}).get("terminated")
        if terminated is None:
            return None
        codes.append(int(terminated.get("exitCode", 0)))
    return "Succeeded" if all(code == 0 for code in codes) else "Failed"
