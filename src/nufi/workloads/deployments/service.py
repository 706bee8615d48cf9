"""Inference deployments: an apps/v1 Deployment and a ClusterIP Service per deployment, in a project.

Every method first checks the caller may use the project (`ProjectService.require_access`). Only
objects NuFi made (labelled `app.kubernetes.io/managed-by=nufi`, `nufi.io/workload-kind=deployment`)
are deployments here: a Deployment someone else put in the namespace is not listed, read or touched.

Creating writes the Deployment, then the Service, owned by the Deployment (`ownerReferences`, so the
cluster's garbage collector removes it with the Deployment); when the Service is refused, the
Deployment is deleted again, so a failed create leaves nothing behind. Create, scale and delete are
recorded as intents and audited (`workloads/intents.py`); a crash half-way is settled by the
reconciler from what the cluster shows. What a reader is shown of a deployment (its pods, the
devices they hold, why it waits) is built in `workloads/deployments/view.py`.
"""

from __future__ import annotations

import builtins

from nufi.auth import Principal
from nufi.cluster import ClusterGateway
from nufi.cluster.deployments import (
    DEPLOYMENT,
    delete_deployment,
    delete_service,
    get_deployment,
    get_service,
    list_deployments,
    list_pods,
    scale_deployment,
)
from nufi.cluster.kube_rest import Json
from nufi.cluster.objects import SERVICE, KubeObjects
from nufi.cluster.workload_apply import Write, apply_workload, refused_as
from nufi.db.intents import Intent
from nufi.errors import Conflict, NotFound, ValidationFailed
from nufi.monitoring.service import MonitoringService
from nufi.workloads.accelerators import AcceleratorService, Placement
from nufi.workloads.deployments.reading import (
    accelerator_of,
    annotation_outcome,
    first_container,
    is_ours,
    object_name,
    summary,
    summary_of,
    target_id,
)
from nufi.workloads.deployments.spec import (
    MAX_REPLICAS,
    DeploymentCreate,
    deployment_manifest,
    service_manifest,
)
from nufi.workloads.deployments.view import DeploymentView, DeploymentViews
from nufi.workloads.intents import Outcome, acting
from nufi.workloads.kinds import WorkloadKind, name_taken
from nufi.workloads.labels import (
    MANAGED_BY,
    MANAGED_BY_NUFI,
    WORKLOAD,
    WORKLOAD_KIND,
    device_type_of,
    selector_text,
)
from nufi.workloads.names import is_name
from nufi.workloads.projects.service import ProjectService
from nufi.workloads.quotas.room import Replicas, pods_demand

_KIND: WorkloadKind = "deployment"
_OURS = selector_text({MANAGED_BY: MANAGED_BY_NUFI, WORKLOAD_KIND: _KIND})


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
        self._views = DeploymentViews(accelerators, monitoring)

    async def create(
        self, principal: Principal | None, project: str, request: DeploymentCreate
    ) -> DeploymentView:
        await self._projects.require_access(principal, project)
        actor = acting(principal)
        placement = await self._accelerators.resolve(request.accelerator)
        await self._accelerators.check_quota(
            project,
            placement,
            pods=request.replicas,
            replicas=Replicas("replicas", placement.count),
            also=[pods_demand(request.replicas, "replicas")],
        )
        if await get_deployment(self._cluster, project, request.name) is not None:
            raise _exists(project, request.name)
        # A Service of ours whose Deployment is gone (left by an older NuFi, without an owner) would
        # refuse this one (409).
        await self._remove_service(project, request.name)
        planned = summary(request.name, request.image, placement.device_type, request.accelerator.count)
        planned |= {"replicas": request.replicas, "port": request.port}
        target = target_id(project, request.name)
        said = {"project": project, "name": request.name}
        top = Write(
            DEPLOYMENT, deployment_manifest(project, request, placement), _exists(project, request.name)
        )
        service_taken = Conflict(code="deployment.service_taken", field="name", params=said)
        service = Write(SERVICE, service_manifest(project, request, placement), service_taken)
        async with self._recorder.change(actor, "deployment.create", _KIND, target, after=planned) as change:
            created = await apply_workload(KubeObjects(self._cluster), project, top, [service], change)
        return await self._views.view(principal, project, created, [])

    async def list(self, principal: Principal | None, project: str) -> builtins.list[DeploymentView]:
        await self._projects.require_access(principal, project)
        deployments = await list_deployments(self._cluster, project, label_selector=_OURS)
        pods = await list_pods(self._cluster, project, label_selector=_OURS)
        by_workload: dict[str, builtins.list[Json]] = {}
        for pod in pods:
            name = ((pod.get("metadata") or {}).get("labels") or {}).get(WORKLOAD)
            by_workload.setdefault(str(name), []).append(pod)
        views = [
            await self._views.view(principal, project, d, by_workload.get(object_name(d), []))
            for d in sorted(deployments, key=object_name)
        ]
        return views

    async def get(self, principal: Principal | None, project: str, name: str) -> DeploymentView:
        await self._projects.require_access(principal, project)
        deployment = await self._ours(project, name)
        return await self._views.view(principal, project, deployment, await self._pods(project, name))

    async def scale(
        self, principal: Principal | None, project: str, name: str, replicas: int
    ) -> DeploymentView:
        await self._projects.require_access(principal, project)
        if not 0 <= replicas <= MAX_REPLICAS:
            raise ValidationFailed(
                code="deployment.replicas_range",
                field="replicas",
                params={"most": MAX_REPLICAS, "replicas": replicas},
            )
        actor = acting(principal)
        current = await self._ours(project, name)
        before = {"replicas": int((current.get("spec") or {}).get("replicas", 1) or 0)}
        await self._check_scale_quota(project, current, before["replicas"], replicas)
        async with self._recorder.change(
            actor,
            "deployment.scale",
            _KIND,
            target_id(project, name),
            before=before,
            after={"replicas": replicas},
        ) as change:
            change.touched = True
            with refused_as(absent=_absent(project, name), field="replicas", change=change):
                scaled = await scale_deployment(self._cluster, project, name, replicas)
        return await self._views.view(principal, project, scaled, await self._pods(project, name))

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
            with refused_as():
                await delete_deployment(self._cluster, project, name)
                await self._remove_service(project, name)

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

    async def _check_scale_quota(self, project: str, deployment: Json, now: int, wanted: int) -> None:
        # Only the pods added are counted: those it has are in the quotas' `used` already.
        resource_key, count = accelerator_of(
            (first_container(deployment.get("spec") or {}).get("resources") or {}).get("limits") or {}
        )
        more_pods = wanted - now
        if resource_key and more_pods > 0:
            await self._accelerators.check_quota(
                project,
                Placement(device_type_of(deployment), resource_key, count),
                pods=more_pods,
                field="replicas",
                replicas=Replicas("replicas", count, counted=now),
                also=[pods_demand(more_pods, "replicas", counted=now)],
            )

    async def _remove_service(self, project: str, name: str) -> None:
        # The garbage collector removes it with its Deployment; a Service of an older NuFi (no owner),
        # or one the collector has not reached yet, is removed here.
        with refused_as():
            service = await get_service(self._cluster, project, name)
            if service is not None and is_ours(service):
                await delete_service(self._cluster, project, name)

    # -- internals -----------------------------------------------------------------------------------

    async def _ours(self, project: str, name: str) -> Json:
        deployment = await get_deployment(self._cluster, project, name) if is_name(name) else None
        if deployment is None or not is_ours(deployment):
            raise _absent(project, name)
        return deployment

    async def _pods(self, project: str, name: str) -> builtins.list[Json]:
        selector = selector_text({MANAGED_BY: MANAGED_BY_NUFI, WORKLOAD_KIND: _KIND, WORKLOAD: name})
        return await list_pods(self._cluster, project, label_selector=selector)


def _exists(project: str, name: str) -> Conflict:
    return name_taken(_KIND, project, name)


def _absent(project: str, name: str) -> NotFound:
    return NotFound(code="deployment.not_found", project=project, deployment=name)
