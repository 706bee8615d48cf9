"""The process runtime of the simulated kubelets: mapped containers of bound pods run as local processes.

It also keeps the table the services proxy reads: (pod uid, container port) → 127.0.0.1:<local port>.
A container whose working directory is a PersistentVolumeClaim's mount (a lab's home) works in that
claim's directory, owned by that claim's user, which the next pod mounting it finds as it was left.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nufi_sandbox.devcluster.runtime.container import ContainerPlan, ContainerProcess
from nufi_sandbox.devcluster.runtime.env import Placeholders, launch_spec
from nufi_sandbox.devcluster.runtime.map import RuntimeMap
from nufi_sandbox.devcluster.runtime.unprivileged import (
    let_through_to_interpreter,
    pod_users,
    work_root,
)
from nufi_sandbox.processes import free_port

Obj = dict[str, Any]

# Pods get at most this long between SIGTERM and SIGKILL, whatever their terminationGracePeriodSeconds:
# the dev cluster must stop well within the time its own stopper waits for it.
MAX_STOP_GRACE_SECONDS = 2.0

StatusSink = Callable[["PodProcesses", ContainerProcess], None]
EventSink = Callable[[Obj, str, str, str], None]
"""(pod, type, reason, message): an Event about the pod."""


@dataclass
class PodProcesses:
    namespace: str
    name: str
    uid: str
    containers: dict[str, ContainerProcess] = field(default_factory=dict)
    ports: dict[int | str, int] = field(default_factory=dict)
    """Container port number or name → local port."""


class ProcessRuntime:
    def __init__(self, runtime_map: RuntimeMap, state_dir: Path | None) -> None:
        self.map = runtime_map
        self._root = (state_dir or Path(tempfile.mkdtemp(prefix="nufi-pods-", dir="/tmp"))) / "pods"
        self._pods: dict[str, PodProcesses] = {}
        # Each pod runs as a user of its own when the dev cluster is root, in work dirs outside the
        # state directory (unprivileged.py); a link in the state directory leads there for whoever
        # may read it.
        self._users = pod_users()
        self._work_root: Path | None = None

    def runs(self, pod: Obj) -> bool:
        """Whether any container of `pod` has an image in the map."""
        return any(
            self.map.entry_for(str(c.get("image", ""))) is not None
            for c in pod.get("spec", {}).get("containers") or []
        )

    def pod(self, uid: str) -> PodProcesses | None:
        return self._pods.get(uid)

    def local_port(self, pod_uid: str, port: int | str) -> int | None:
        """Where a pod's container port is served on 127.0.0.1, if a local process serves it."""
        found = self._pods.get(pod_uid)
        return None if found is None else found.ports.get(port)

    def log_path(self, namespace: str, name: str, uid: str, container: str) -> Path:
        """Where a mapped container's stdout and stderr go (it may not exist: never started here)."""
        return self._root / f"{namespace}_{name}_{uid}" / f"{container}.log"

    def launch(
        self,
        pod: Obj,
        *,
        pod_ip: str,
        device_env: Mapping[str, Mapping[str, str]],
        on_status: StatusSink,
        on_event: EventSink,
    ) -> PodProcesses | None:
        """Start every mapped container of `pod`; returns None when the pod has none."""
        meta, spec = pod["metadata"], pod.get("spec", {})
        uid, namespace, name = str(meta["uid"]), str(meta.get("namespace", "")), str(meta["name"])
        if uid in self._pods or not self.runs(pod):
            return self._pods.get(uid)
        processes = PodProcesses(namespace, name, uid)
        self._pods[uid] = processes
        plans = [
            plan
            for container in spec.get("containers") or []
            if (plan := self._plan(pod, container, processes, pod_ip, device_env, on_event)) is not None
        ]
        for plan in plans:
            process = ContainerProcess(plan, lambda changed: on_status(processes, changed))
            processes.containers[plan.name] = process
            process.start()
        return processes

    def _plan(
        self,
        pod: Obj,
        container: Obj,
        processes: PodProcesses,
        pod_ip: str,
        device_env: Mapping[str, Mapping[str, str]],
        on_event: EventSink,
    ) -> ContainerPlan | None:
        """How one container of the pod runs; None when its image is not in the map. Its first port
        is given a local port in `processes.ports`."""
        entry = self.map.entry_for(str(container.get("image", "")))
        if entry is None:
            return None
        namespace, name, uid = processes.namespace, processes.name, processes.uid
        spec = pod.get("spec", {})
        node = str(spec.get("nodeName", ""))
        local_port = free_port()
        ports = container.get("ports") or []
        if ports:
            processes.ports[int(ports[0]["containerPort"])] = local_port
            if ports[0].get("name"):
                processes.ports[str(ports[0]["name"])] = local_port
        pod_dir = self.log_path(namespace, name, uid, "-").parent
        claim = home_claim(pod, container)
        # `claims` has no `_`, which every pod's directory has; `@` is in no Kubernetes name: a
        # claim's directory and user never meet a pod's. The editor shows its last part, the claim.
        volume = f"claims/{namespace}/{claim}" if claim else None
        workdir = self._workdir(pod_dir, str(container["name"]), volume)
        launch = launch_spec(
            entry,
            container,
            pod,
            pod_ip=pod_ip,
            placeholders=Placeholders(local_port, node, name, namespace, workdir),
            node_env=self.map.node_env(node),
            device_env=device_env.get(str(container["name"]), {}),
        )
        _warn_unsimulated(pod, container, launch.skipped, on_event)
        return ContainerPlan(
            name=str(container["name"]),
            spec=launch,
            workdir=workdir,
            log=self.log_path(namespace, name, uid, str(container["name"])),
            restart_policy=str(spec.get("restartPolicy") or "Always"),
            local_port=local_port,
            readiness=container.get("readinessProbe"),
            liveness=container.get("livenessProbe"),
            resolve_port=_resolver(container, local_port),
            # A claim keeps its user for as long as the dev cluster runs: its files stay its own.
            run_as=None if self._users is None else self._users.take(f"claim@{volume}" if volume else uid),
        )

    def _workdir(self, pod_dir: Path, container: str, volume: str | None) -> Path:
        if self._work_root is None:
            if self._users is not None:
                let_through_to_interpreter()
            self._work_root = work_root()
        workdir = self._work_root / volume if volume else self._work_root / pod_dir.name / container
        pod_dir.mkdir(parents=True, exist_ok=True)
        link = pod_dir / container
        if not link.is_symlink() and not link.exists():
            link.symlink_to(workdir, target_is_directory=True)
        return workdir

    async def stop_pod(self, uid: str, grace: float) -> None:
        processes = self._pods.get(uid)
        if processes is None:
            return
        wait = min(max(grace, 0.0), MAX_STOP_GRACE_SECONDS)
        await asyncio.gather(*(c.stop(wait) for c in processes.containers.values()))
        # Only once stopped: a stop cut short leaves the pod for stop_all to find, and its user is
        # not given to another pod while anything of it may run.
        self._pods.pop(uid, None)
        if self._users is not None:
            self._users.release(uid)

    async def stop_all(self) -> None:
        await asyncio.gather(*(self.stop_pod(uid, MAX_STOP_GRACE_SECONDS) for uid in list(self._pods)))
        if not self._pods and self._work_root is not None:
            # Work dirs live in /tmp, not the state directory: nothing else would remove them.
            shutil.rmtree(self._work_root, ignore_errors=True)
            self._work_root = None


def home_claim(pod: Obj, container: Obj) -> str | None:
    """The claim whose volume `container` mounts at its working directory, if any. Only there: the
    work dir is the one directory a container's process has; other mounts are not simulated."""
    claims = {
        str(volume["name"]): str(volume["persistentVolumeClaim"]["claimName"])
        for volume in pod.get("spec", {}).get("volumes") or []
        if (volume.get("persistentVolumeClaim") or {}).get("claimName")
    }
    for mount in container.get("volumeMounts") or []:
        if mount.get("mountPath") == container.get("workingDir") and mount.get("name") in claims:
            return claims[str(mount["name"])]
    return None


def _warn_unsimulated(pod: Obj, container: Obj, skipped: Sequence[str], on_event: EventSink) -> None:
    """Events for what of the container's spec the runtime leaves out."""
    if container.get("command"):
        on_event(
            pod,
            "Warning",
            "CommandIgnored",
            f"container {container['name']}: command is ignored, the runtime map's argv for "
            f"image {container.get('image')} is the entrypoint (args are appended to it)",
        )
    for item in skipped:
        on_event(
            pod,
            "Warning",
            "EnvSourceNotSimulated",
            f"container {container['name']}: env {item} is not simulated and was left out",
        )


def _resolver(container: Obj, local_port: int) -> Callable[[object], int | None]:
    """A probe port (number or name of one of the container's ports) → the local port serving it."""
    ports = container.get("ports") or []
    first = ports[0] if ports else None
    by_name = {str(p.get("name")): int(p["containerPort"]) for p in ports if p.get("name")}

    def resolve(port: object) -> int | None:
        if isinstance(port, str) and not port.isdigit():
            number = by_name.get(port)
            if number is None:
                return None
        elif port is None:
            return None
        else:
            number = int(str(port))
        if first is None or number == int(first["containerPort"]):
            return local_port
        return number  # another port: the process may listen on it directly

    return resolve
