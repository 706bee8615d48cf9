"""Inference deployments: an apps/v1 Deployment and a ClusterIP Service per deployment, in a project.

Every method first checks the caller may use the project (`ProjectService.require_access`). Only
objects NuFi made (labelled `app.kubernetes.io/managed-by=nufi`, `nufi.io/workload-kind=deployment`)
are deployments here: a Deployment someone else put in the namespace is not listed, read or touched.

Creating writes the Deployment, then the Service, owned by the Deployment (`ownerReferences`, so the
cluster's garbage collector removes it with the Deployment); when the Service is refused, the
Deployment is deleted again, so a failed create leaves nothing behind. Create, scale and delete are
recorded as intents and audited (`workloads/intents.py`); a crash half-way is settled by the
reconciler from what the cluster shows.
"""

from __future__ import annotations

import asyncio
import builtins
from dataclasses import dataclass
from typing import Any

from nufi.auth import Principal
from nufi.cluster import ClusterGateway
from nufi.cluster.deployments import (
    create_deployment,
    create_service,
    delete_deployment,
    delete_service,
    get_deployment,
    get_service,
    list_deployments,
    list_pods,
    scale_deployment,
)
from nufi.cluster.kube_rest import Json, KubeRefused
from nufi.db.intents import Intent
from nufi.errors import Conflict, NotFound, NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.monitoring import MonitoringService
from nufi.workloads.accelerators import AcceleratorService, Placement
from nufi.workloads.deployment_reading import (
    accelerator_of,
    annotation_outcome,
    first_container,
    is_ours,
    object_name,
    port_of,
    summary,
    summary_of,
    target_id,
)
from nufi.workloads.deployment_spec import (
    MAX_REPLICAS,
    DeploymentCreate,
    deployment_manifest,
    service_manifest,
)
from nufi.workloads.deployment_status import PodState, Status, deployment_status, pod_state
from nufi.workloads.intents import Outcome, acting
from nufi.workloads.kube_errors import refused
from nufi.workloads.labels import (
    DEVICE_TYPE,
    MANAGED_BY,
    MANAGED_BY_NUFI,
    WORKLOAD,
    WORKLOAD_KIND,
    selector_text,
)
from nufi.workloads.names import is_name
from nufi.workloads.owners import owned_by
from nufi.workloads.projects import ProjectService

_log = get_logger("nufi.workloads.deployments")
_ATTRIBUTION_WAIT_SECONDS = 1.0
_KIND = "deployment"
_OURS = selector_text({MANAGED_BY: MANAGED_BY_NUFI, WORKLOAD_KIND: _KIND})


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
    reason: str | None
    pods: tuple[PodView, ...]
    urls: DeploymentUrls
    created_at: str | None


class DeploymentService:
    def __init__(
        self,
        projects: ProjectService,
        accelerators: AcceleratorService,
        cluster: ClusterGateway,
        *,
        monitoring: MonitoringService | None = None,
    ) -> None:
        self._projects = projects
        self._accelerators = accelerators
        self._cluster = cluster
        self._recorder = projects.recorder
        self._recorder.register(_KIND, self._settle)
        # The device attribution monitoring already reads from the exporters: which devices a pod holds.
        self._monitoring = monitoring

    async def create(
        self, principal: Principal | None, project: str, request: DeploymentCreate
    ) -> DeploymentView:
        await self._projects.require_access(principal, project)
        actor = acting(principal)
        placement = await self._accelerators.resolve(request.accelerator)
        if await get_deployment(self._cluster, project, request.name) is not None:
            raise _exists(project, request.name)
        # A Service of ours whose Deployment is gone (left by an older NuFi, without an owner) would
        # refuse this one (409).
        await self._remove_service(project, request.name)
        planned = summary(request.name, request.image, placement.device_type, request.accelerator.count)
        planned |= {"replicas": request.replicas, "port": request.port}
        target = target_id(project, request.name)
        async with self._recorder.change(actor, "deployment.create", _KIND, target, after=planned) as change:
            change.touched = True
            try:
                created = await create_deployment(
                    self._cluster, project, deployment_manifest(project, request, placement)
                )
            except KubeRefused as exc:
                change.touched = False
                if exc.status == 409:
                    raise _exists(project, request.name) from None
                raise refused(exc) from None
            try:
                await create_service(
                    self._cluster, project, owned_by(service_manifest(project, request, placement), created)
                )
            except BaseException as exc:
                await self._undo(project, request.name)
                if isinstance(exc, KubeRefused):
                    if exc.status == 409:
                        raise Conflict(
                            f"a Service named {request.name!r} already exists in project {project!r}; "
                            "choose another deployment name",
                            field="name",
                        ) from None
                    raise refused(exc) from None
                raise
        return await self._view(principal, project, created, [])

    async def list(self, principal: Principal | None, project: str) -> builtins.list[DeploymentView]:
        await self._projects.require_access(principal, project)
        deployments = await list_deployments(self._cluster, project, label_selector=_OURS)
        pods = await list_pods(self._cluster, project, label_selector=_OURS)
        by_workload: dict[str, builtins.list[Json]] = {}
        for pod in pods:
            name = ((pod.get("metadata") or {}).get("labels") or {}).get(WORKLOAD)
            by_workload.setdefault(str(name), []).append(pod)
        views = [
            await self._view(principal, project, d, by_workload.get(object_name(d), []))
            for d in sorted(deployments, key=object_name)
        ]
        return views

    async def get(self, principal: Principal | None, project: str, name: str) -> DeploymentView:
        await self._projects.require_access(principal, project)
        deployment = await self._ours(project, name)
        return await self._view(principal, project, deployment, await self._pods(project, name))

    async def scale(
        self, principal: Principal | None, project: str, name: str, replicas: int
    ) -> DeploymentView:
        await self._projects.require_access(principal, project)
        if not 0 <= replicas <= MAX_REPLICAS:
            raise ValidationFailed(
                f"replicas must be between 0 and {MAX_REPLICAS}, got {replicas}", field="replicas"
            )
        actor = acting(principal)
        current = await self._ours(project, name)
        before = {"replicas": int((current.get("spec") or {}).get("replicas", 1) or 0)}
        async with self._recorder.change(
            actor,
            "deployment.scale",
            _KIND,
            target_id(project, name),
            before=before,
            after={"replicas": replicas},
        ) as change:
            change.touched = True
            try:
                scaled = await scale_deployment(self._cluster, project, name, replicas)
            except KubeRefused as exc:
                change.touched = False
                if exc.status == 404:
                    raise _absent(project, name) from None
                raise refused(exc, field="replicas") from None
        return await self._view(principal, project, scaled, await self._pods(project, name))

    async def delete(self, principal: Principal | None, project: str, name: str) -> None:
        """Delete the Deployment (its ReplicaSets and pods with it) and its Service; a Service of ours
        left without its Deployment is deleted too (404 only when neither is there)."""
        await self._projects.require_access(principal, project)
        actor = acting(principal)
        try:
            deployment = await self._ours(project, name)
        except NotFound:
            service = await get_service(self._cluster, project, name) if is_name(name) else None
            if service is None or not is_ours(service):
                raise
            deployment = None
        before = None if deployment is None else summary_of(deployment)
        async with self._recorder.change(
            actor, "deployment.delete", _KIND, target_id(project, name), before=before
        ) as change:
            change.touched = True
            try:
                await delete_deployment(self._cluster, project, name)
                await self._remove_service(project, name)
            except KubeRefused as exc:
                raise refused(exc) from None

    async def _settle(self, intent: Intent) -> Outcome:
        """What the cluster shows of a deployment change whose request ended before it was recorded:
        a Deployment without its Service is undone (the create is retried by its author)."""
        project, _, name = intent.target_id.partition("/")
        found = await get_deployment(self._cluster, project, name) if is_name(name) else None
        deployment = found if found is not None and is_ours(found) else None
        if intent.action == "deployment.create":
            service = await get_service(self._cluster, project, name) if deployment is not None else None
            if deployment is not None and service is not None and is_ours(service):
                return Outcome.complete(intent.after)
            if deployment is not None:
                await delete_deployment(self._cluster, project, name)
            await self._remove_service(project, name)
            return Outcome.nothing()
        if intent.action == "deployment.delete":
            if deployment is not None:
                return Outcome.nothing()
            await self._remove_service(project, name)
            return Outcome.complete()
        if intent.action == "deployment.scale":
            wanted = (intent.after or {}).get("replicas")
            if deployment is not None and (deployment.get("spec") or {}).get("replicas") == wanted:
                return Outcome.complete(intent.after)
            return Outcome.nothing()
        return annotation_outcome(intent, deployment)

    async def _remove_service(self, project: str, name: str) -> None:
        # The garbage collector removes it with its Deployment; a Service of an older NuFi (no owner),
        # or one the collector has not reached yet, is removed here.
        try:
            service = await get_service(self._cluster, project, name)
            if service is not None and is_ours(service):
                await delete_service(self._cluster, project, name)
        except KubeRefused as exc:
            raise refused(exc) from None

    # -- internals -----------------------------------------------------------------------------------

    async def _ours(self, project: str, name: str) -> Json:
        deployment = await get_deployment(self._cluster, project, name) if is_name(name) else None
        if deployment is None or not is_ours(deployment):
            raise _absent(project, name)
        return deployment

    async def _pods(self, project: str, name: str) -> builtins.list[Json]:
        selector = selector_text({MANAGED_BY: MANAGED_BY_NUFI, WORKLOAD_KIND: _KIND, WORKLOAD: name})
        return await list_pods(self._cluster, project, label_selector=selector)

    async def _undo(self, project: str, name: str) -> None:
        try:
            await delete_deployment(self._cluster, project, name)
        except (KubeRefused, NufiError) as exc:
            # The caller's error is the one that matters; this one is for the operator.
            _log.warning(
                "could not delete a half-created deployment", project=project, name=name, error=str(exc)
            )

    async def _view(
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
        if status in ("Pending", "Degraded") and any(s.unschedulable for s in states) and resource_key:
            reason = await self._pending_reason(Placement(device_type, resource_key, count), reason)
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

    async def _pending_reason(self, placement: Placement, scheduler: str | None) -> str:
        try:
            reason = await self._accelerators.pending_reason(placement)
        except NufiError:
            return scheduler or "waiting for the scheduler"
        if reason.startswith("no node") or scheduler is None:
            return reason
        return f"{reason}: {scheduler}"


def _retrieve(reading: asyncio.Future[Any]) -> None:
    # A reading given up on may still fail later; its failure is monitoring's to report, not an
    # unretrieved exception here.
    if not reading.cancelled():
        reading.exception()


def _pod_view(state: PodState, devices: tuple[str, ...]) -> PodView:
    return PodView(
        name=state.name,
        node=state.node,
        phase=state.phase,
        ready=state.ready,
        accelerators=state.accelerators,
        devices=devices,
        traffic_on=state.traffic_on,
        thermal_reason=state.thermal_reason,
    )


def _exists(project: str, name: str) -> Conflict:
    return Conflict(
        f"a deployment named {name!r} already exists in project {project!r}; choose another name",
        field="name",
    )


def _absent(project: str, name: str) -> NotFound:
    return NotFound(
        f"There is no deployment {name!r} in project {project!r}.", project=project, deployment=name
    )
