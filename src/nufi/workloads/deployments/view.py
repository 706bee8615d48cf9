"""What a deployment looks like to its reader: its pods, the devices each holds, why it waits.

`DeploymentViews` turns a Deployment and its pods into a `DeploymentView`: status from the pods and
the Deployment's conditions, the devices each pod holds from monitoring's latest snapshot (waited
for briefly, never cancelled), and, while a pod cannot be scheduled, the accelerator service's
reading of why.
"""

from __future__ import annotations

import asyncio
import builtins
from dataclasses import dataclass, fields
from typing import Any

from nufi.auth import Principal
from nufi.cluster.kube_rest import Json
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.monitoring.service import MonitoringService
from nufi.workloads.accelerators import AcceleratorService, Placement
from nufi.workloads.deployments.reading import accelerator_of, first_container, port_of
from nufi.workloads.deployments.status import PodState, Status, deployment_status, pod_state
from nufi.workloads.labels import DEVICE_TYPE

_ATTRIBUTION_WAIT_SECONDS = 1.0
_SHORT_OF_DEVICES = frozenset({"workload.pending.no_free", "workload.pending.no_node_has_key"})


@dataclass(frozen=True)
class PodView:
    name: str
    node: str | None
    phase: str
    ready: bool
    # What the pod holds, per resource key (from its limits).
    accelerators: dict[str, int]
    # The device IDs it holds, as the type's exporter labels them (from the kubelet's pod-resources
    # API) in monitoring's latest snapshot; empty until the exporter says, or when it never does.
    devices: tuple[str, ...] = ()
    # Off while thermal control keeps its Service's traffic away from it (a hot node), with why; a hot
    # pod kept as the last routable replica says so too.
    traffic_on: bool = True
    thermal_reason: str | None = None
    thermal_message: Message | None = None


@dataclass(frozen=True)
class DeploymentUrls:
    cluster: str
    api_proxy: str


@dataclass(frozen=True)
class DeploymentView:
    project: str
    name: str
    image: str
    device_type: str
    resource_key: str
    count: int
    replicas: int
    ready_replicas: int
    port: int
    status: Status
    # Why it waits or what broke, as a message of the catalogs (Kubernetes' own words in its params).
    reason: Message | None
    pods: tuple[PodView, ...]
    urls: DeploymentUrls
    created_at: str | None


class DeploymentViews:
    def __init__(self, accelerators: AcceleratorService, monitoring: MonitoringService | None) -> None:
        self._accelerators = accelerators
        # The device attribution monitoring already reads from the exporters: which devices a pod holds.
        self._monitoring = monitoring

    async def view(
        self, principal: Principal | None, project: str, deployment: Json, pods: builtins.list[Json]
    ) -> DeploymentView:
        metadata = deployment.get("metadata") or {}
        spec = deployment.get("spec") or {}
        name = str(metadata.get("name") or "")
        container = first_container(spec)
        device_type = str((metadata.get("labels") or {}).get(DEVICE_TYPE) or "")
        limits = (container.get("resources") or {}).get("limits") or {}
        resource_key, count = accelerator_of(limits)
        port = port_of(container)
        states = sorted((pod_state(p) for p in pods), key=lambda s: s.name)
        desired = int(spec.get("replicas", 1) or 0)
        status, reason = deployment_status(
            desired, states, (deployment.get("status") or {}).get("conditions") or []
        )
        running = any(s.node and s.phase == "Running" for s in states)
        held = await self._held_devices(principal, device_type) if running else {}
        placement = Placement(device_type, resource_key, count)
        if status in ("Pending", "Degraded") and any(s.unschedulable for s in states) and resource_key:
            reason = await self._pending_reason(placement, reason)
        reason = await self._accelerators.named(reason, placement)
        return DeploymentView(
            project=project,
            name=name,
            image=str(container.get("image") or ""),
            device_type=device_type,
            resource_key=resource_key,
            count=count,
            replicas=desired,
            ready_replicas=sum(1 for s in states if s.ready and not s.terminating),
            port=port,
            status=status,
            reason=reason,
            pods=tuple(_pod_view(s, held.get((project, s.name), ())) for s in states),
            urls=DeploymentUrls(
                cluster=f"http://{name}.{project}.svc.cluster.local:{port}",
                api_proxy=f"/api/v1/namespaces/{project}/services/{name}:{port}/proxy/",
            ),
            created_at=metadata.get("creationTimestamp"),
        )

    async def _held_devices(
        self, principal: Principal | None, device_type: str
    ) -> dict[tuple[str, str], tuple[str, ...]]:
        """Which devices each pod holds, as the type's exporters label them (the attribution
        monitoring shows); empty when monitoring is not wired or cannot say."""
        if self._monitoring is None or not device_type:
            return {}
        # Shared with every other reader of the type: waited for briefly, never cancelled, so a slow
        # Prometheus delays no deployment read and the evaluation still lands for the next one.
        reading = asyncio.ensure_future(self._monitoring.snapshot(principal, device_type))
        reading.add_done_callback(_retrieve)
        try:
            async with asyncio.timeout(_ATTRIBUTION_WAIT_SECONDS):
                snapshot = await asyncio.shield(reading)
        except (TimeoutError, NufiError):
            return {}
        held: dict[tuple[str, str], list[str]] = {}
        for node in snapshot.nodes:
            for device in node.devices:
                if device.namespace and device.pod:
                    held.setdefault((device.namespace, device.pod), []).append(device.device)
        return {pod: tuple(sorted(devices)) for pod, devices in held.items()}

    async def _pending_reason(self, placement: Placement, scheduler: Message | None) -> Message:
        try:
            reason = await self._accelerators.pending_reason(placement)
        except NufiError:
            return scheduler or Message("workload.pending.waiting")
        # Short of devices, the accelerator's reading says it all; otherwise the scheduler's adds why.
        if reason.code in _SHORT_OF_DEVICES or scheduler is None:
            return reason
        return Message("workload.pending.with_scheduler", {"reason": reason, "scheduler": scheduler})


def _retrieve(reading: asyncio.Future[Any]) -> None:
    # A reading given up on may still fail later; its failure is monitoring's to report, not an
    # unretrieved exception here.
    if not reading.cancelled():
        reading.exception()


def _pod_view(state: PodState, devices: tuple[str, ...]) -> PodView:
    # A pod's view is its state as read, less what only the status needs, plus the devices it holds.
    shared = {field.name: getattr(state, field.name) for field in fields(PodView) if field.name != "devices"}
    return PodView(**shared, devices=devices)
