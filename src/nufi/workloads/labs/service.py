"""Labs: Jupyter and VS Code servers in a project, with an accelerator and a home volume.

Every method takes the caller's principal: a project's members and admins may do everything with
its labs, anyone else gets 403 (`ProjectService.require_access`). Creating writes the lab's top
object first (its StatefulSet, or its Notebook), then its parts (Service, claim) owned by it
(`ownerReferences` with its uid), so the cluster's garbage collector removes the parts with the top
object, and a part whose top object is gone goes too. When a write is refused the objects already
written are deleted before the refusal is reported. Deleting removes the top object and every part
found by the lab's labels, so a lab left half-made (by a crash, or by hand) can still be deleted and
made again. Create, delete, start and stop are intents, audited when done (`workloads/intents.py`).
What each step does to the cluster, in the lab's words, is `labs/store.py`.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from nufi.auth import Principal
from nufi.cluster.kube_rest import Json
from nufi.cluster.labs import CLAIM, NOTEBOOK, POD, SERVICE, STATEFULSET, LabObjects
from nufi.cluster.objects import Kind
from nufi.cluster.resources import quantity_to_int
from nufi.cluster.service_route import ServiceClient
from nufi.cluster.workload_apply import Write, apply_workload, refused_as
from nufi.config import Settings
from nufi.db.intents import Intent
from nufi.errors import Conflict, NotFound, NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.workloads.accelerators import AcceleratorService, Placement
from nufi.workloads.intents import Outcome, acting
from nufi.workloads.kinds import name_taken
from nufi.workloads.labels import DEVICE_TYPE, device_type_of
from nufi.workloads.labs import manifests
from nufi.workloads.labs.activity_reader import ActivityReader
from nufi.workloads.labs.manifests import STORAGE_ANNOTATION
from nufi.workloads.labs.model import (
    MAX_LAB_NAME_LENGTH,
    PROFILES,
    SERVICE_PORT,
    Backend,
    Lab,
    LabAccelerator,
    LabKind,
    LabRequest,
    LabRoute,
)
from nufi.workloads.labs.origin import LabOrigins
from nufi.workloads.labs.reading import (
    Found,
    as_int,
    first_container,
    is_running,
    lab_kind,
    lab_selector,
    object_name,
    served_prefix,
    summary,
)
from nufi.workloads.labs.sockets import LabSockets
from nufi.workloads.labs.status import observe
from nufi.workloads.labs.store import LabStore
from nufi.workloads.names import check_name
from nufi.workloads.projects.service import ProjectService
from nufi.workloads.quotas.room import pods_demand, storage_demand

_log = get_logger("nufi.workloads")
_STARTS_WITH_LETTER = re.compile(r"[a-z]")
_TARGET_KIND = "lab"


@dataclass(frozen=True)
class LabSettings:
    jupyter_image: str
    vscode_image: str
    origins: LabOrigins | None = None
    # How often an open lab socket asks again whether its caller may still use it.
    socket_check_seconds: float = 5.0
    # How long a lab's activity reading is kept, and how long one may take (`labs/activity_reader.py`).
    activity_cache_seconds: float = 15.0
    activity_timeout_seconds: float = 2.0

    @classmethod
    def from_settings(cls, settings: Settings) -> LabSettings:
        origins = LabOrigins.from_settings(settings.lab_base_domain, settings.dashboard_public_url)
        return cls(
            settings.lab_jupyter_image,
            settings.lab_vscode_image,
            origins,
            socket_check_seconds=settings.lab_socket_check_seconds,
            activity_cache_seconds=settings.lab_activity_cache_seconds,
            activity_timeout_seconds=settings.lab_activity_timeout_seconds,
        )

    def origin(self, project: str, name: str) -> str | None:
        return self.origins.origin(project, name) if self.origins is not None else None

    def origin_url(self, project: str, name: str, prefix: str) -> str | None:
        """The lab's path on its own origin: the address its pages are served at."""
        origin = self.origin(project, name)
        return origin + prefix if origin is not None else None

    def image_for(self, kind: LabKind) -> str:
        return self.jupyter_image if kind == "jupyter" else self.vscode_image


class LabService:
    def __init__(
        self,
        projects: ProjectService,
        accelerators: AcceleratorService,
        objects: LabObjects,
        settings: LabSettings,
        upstreams: ServiceClient | None = None,
    ) -> None:
        self._projects = projects
        # How labs' activity is read: over the client the lab proxy reaches their Services with; without
        # one, labs are listed without their activity.
        self._activity = (
            None
            if upstreams is None
            else ActivityReader(
                upstreams,
                cache_seconds=settings.activity_cache_seconds,
                timeout_seconds=settings.activity_timeout_seconds,
            )
        )
        self._accelerators = accelerators
        self._objects = objects
        self._store = LabStore(objects)
        self._settings = settings
        self._recorder = projects.recorder
        self._recorder.register(_TARGET_KIND, self._settle)
        # The lab proxy's open sockets, closed when their caller's access ends.
        self.sockets = LabSockets(check_seconds=settings.socket_check_seconds)
        projects.on_access_change(self.sockets.access_changed)

    # -- reads ---------------------------------------------------------------------------------------

    async def list_labs(self, principal: Principal | None, project: str) -> list[Lab]:
        await self._projects.require_access(principal, project)
        selector = lab_selector()
        found = [
            Found("notebook", nb)
            for nb in await self._objects.list(NOTEBOOK, project, label_selector=selector)
        ]
        notebooks = {object_name(f.top) for f in found}
        for sts in await self._objects.list(STATEFULSET, project, label_selector=selector):
            # The Notebook controller's StatefulSets carry the Notebook's labels; the Notebook stands
            # for them.
            if object_name(sts) not in notebooks and not (sts.get("metadata") or {}).get("ownerReferences"):
                found.append(Found("statefulset", sts))
        labs = [await self._view(project, f) for f in found]
        return await self._with_activity(sorted(labs, key=lambda lab: lab.name))

    async def get(self, principal: Principal | None, project: str, name: str) -> Lab:
        await self._projects.require_access(principal, project)
        lab = await self._view(project, await self._store.require(project, name))
        return (await self._with_activity([lab]))[0]

    async def route(self, principal: Principal | None, project: str, name: str) -> LabRoute:
        """Where the lab proxy sends the caller's traffic for a lab; 403 / 404 as for `get`."""
        await self._projects.require_access(principal, project)
        found = await self._store.require(project, name)
        profile = PROFILES[lab_kind(found.top)]
        prefix = served_prefix(found.backend, project, name)
        return LabRoute(
            namespace=project,
            service=name,
            port=SERVICE_PORT,
            prefix=prefix,
            serves_prefix=profile.serves_prefix,
            backend=found.backend,
        )

    # -- writes --------------------------------------------------------------------------------------

    async def create(self, principal: Principal | None, project: str, request: LabRequest) -> Lab:
        await self._projects.require_access(principal, project)
        actor = acting(principal)
        name = _check_lab_name(request.name)
        placement = await self._accelerators.resolve(request.accelerator, field="accelerator")
        # Its pod and its home volume's claim count against the project's quotas as much as its devices.
        await self._accelerators.check_quota(
            project,
            placement,
            also=[storage_demand(request.storage_gib, "storage_gib"), pods_demand(1, None)],
        )
        if await self._store.find(project, name) is not None:
            raise name_taken("lab", project, name)
        with refused_as():
            served = await self._objects.notebooks_served()
        backend: Backend = "notebook" if served else "statefulset"
        plan = manifests.LabPlan(
            project=project,
            name=name,
            kind=request.kind,
            image=request.image or self._settings.image_for(request.kind),
            storage_gib=request.storage_gib,
            placement=placement,
            profile=PROFILES[request.kind],
            origin=self._settings.origin(project, name),
        )
        claim = _write(CLAIM, manifests.claim(plan))
        if backend == "notebook":
            top, parts = _write(NOTEBOOK, manifests.notebook(plan)), [claim]
        else:
            top, parts = (
                _write(STATEFULSET, manifests.statefulset(plan)),
                [_write(SERVICE, manifests.service(plan)), claim],
            )
        # Parts of an earlier lab of this name whose top object is gone would refuse ours (409).
        await self._store.remove_parts(project, name)
        planned = {
            "name": name,
            "kind": request.kind,
            "image": plan.image,
            "device_type": placement.device_type,
            "count": placement.count,
            "storage_gib": request.storage_gib,
            "backend": backend,
        }
        target = f"{project}/{name}"
        async with self._recorder.change(actor, "lab.create", _TARGET_KIND, target, after=planned) as change:
            created = await apply_workload(self._objects, project, top, parts, change)
        _log.info("lab created", project=project, lab=name, kind=request.kind, backend=backend)
        return await self._view(project, Found(backend, created))

    async def stop(self, principal: Principal | None, project: str, name: str) -> Lab:
        return await self._set_running(principal, project, name, running=False)

    async def start(self, principal: Principal | None, project: str, name: str) -> Lab:
        return await self._set_running(principal, project, name, running=True)

    async def delete(self, principal: Principal | None, project: str, name: str) -> None:
        """Delete the lab's top object and every part labelled as the lab's; 404 only when nothing of
        it is left (a Service or claim whose top object is gone is still the lab's, and goes)."""
        await self._projects.require_access(principal, project)
        actor = acting(principal)
        found = await self._store.find(project, name)
        parts = await self._store.parts(project, name)
        if found is None and not parts:
            raise NotFound(code="lab.no_such_lab", project=project, lab=name)
        before = None if found is None else summary(found)
        target = f"{project}/{name}"
        async with self._recorder.change(actor, "lab.delete", _TARGET_KIND, target, before=before) as change:
            change.touched = True
            if found is not None:
                await self._store.remove_top(project, name, found)
            await self._store.remove_parts(project, name)
        self.sockets.access_changed(project, name)
        _log.info("lab deleted", project=project, lab=name)

    async def _settle(self, intent: Intent) -> Outcome:
        """What the cluster shows of a lab change whose request ended before it was recorded: a lab
        missing a part is undone (its author makes it again), a delete half-done is finished."""
        project, _, name = intent.target_id.partition("/")
        found = await self._store.find(project, name)
        if intent.action == "lab.create":
            if found is not None and await self._store.complete(project, name, found):
                return Outcome.complete(intent.after)
            if found is not None:
                await self._store.remove_top(project, name, found)
            await self._store.remove_parts(project, name)
            return Outcome.nothing()
        if intent.action == "lab.delete":
            if found is not None:
                return Outcome.nothing()
            await self._store.remove_parts(project, name)
            return Outcome.complete()
        running = intent.action == "lab.start"
        if found is not None and is_running(found) == running:
            return Outcome.complete(intent.after)
        return Outcome.nothing()

    # -- inside --------------------------------------------------------------------------------------

    async def _set_running(
        self, principal: Principal | None, project: str, name: str, *, running: bool
    ) -> Lab:
        await self._projects.require_access(principal, project)
        actor = acting(principal)
        found = await self._store.require(project, name)
        if running and not is_running(found):
            await self._check_quota(project, found)
        action = "lab.start" if running else "lab.stop"
        target = f"{project}/{name}"
        async with self._recorder.change(
            actor,
            action,
            _TARGET_KIND,
            target,
            before={"running": is_running(found)},
            after={"running": running},
        ) as change:
            change.touched = True
            top = await self._store.switch(project, name, found, running=running)
        return await self._view(project, Found(found.backend, top))

    async def _with_activity(self, labs: list[Lab]) -> list[Lab]:
        return labs if self._activity is None else await self._activity.with_activity(labs)

    async def _check_quota(self, project: str, found: Found) -> None:
        # Starting a stopped lab asks for its devices again: refused up front past the project's quota.
        limits = (first_container(found.top, found.backend).get("resources") or {}).get("limits") or {}
        resource_key, count = next(iter(limits.items()), ("", "0"))
        if resource_key:
            placement = Placement(device_type_of(found.top), resource_key, quantity_to_int(str(count)))
            await self._accelerators.check_quota(project, placement, also=[pods_demand(1, None)])

    async def _view(self, project: str, found: Found) -> Lab:
        top = found.top
        meta = top.get("metadata") or {}
        name = str(meta.get("name"))
        annotations = meta.get("annotations") or {}
        kind = lab_kind(top)
        container = first_container(top, found.backend)
        limits = (container.get("resources") or {}).get("limits") or {}
        device_type = (meta.get("labels") or {}).get(DEVICE_TYPE, "")
        resource_key, count = next(iter(limits.items()), ("", "0"))
        with refused_as():
            pod = await self._objects.get(POD, project, f"{name}-0")
        observed = observe(top, found.backend, pod)
        reason = observed.detail
        status = observed.status
        if status == "Starting" and pod is None and resource_key:
            # No pod and none coming: the StatefulSet's pod was refused by a quota (said only in Events).
            refused = await self._accelerators.quota_reason(
                project, Placement(device_type, resource_key, quantity_to_int(str(count)))
            )
            status, reason = ("Pending", refused) if refused is not None else (status, reason)
        spec = (pod or {}).get("spec") or {}
        if observed.status == "Pending":
            placement = Placement(
                device_type=device_type,
                resource_key=resource_key,
                count=int(count),
                node_selector=dict(spec.get("nodeSelector") or {}),
                tolerations=list(spec.get("tolerations") or []),
            )
            # The scheduler's words stay when the catalog or the cluster cannot be read.
            with contextlib.suppress(NufiError):
                reason = await self._accelerators.pending_reason(placement)
        with contextlib.suppress(NufiError):
            # Kubernetes' words behind a reason name the type's resource key; a person reads its name.
            reason = await self._accelerators.named(
                reason, Placement(device_type, resource_key, quantity_to_int(str(count)))
            )
        prefix = served_prefix(found.backend, project, name)
        return Lab(
            project=project,
            name=name,
            kind=kind,
            image=str(container.get("image") or ""),
            backend=found.backend,
            accelerator=LabAccelerator(device_type=device_type, resource_key=resource_key, count=int(count)),
            storage_gib=as_int(annotations.get(STORAGE_ANNOTATION)),
            status=status,
            reason=reason,
            url=prefix,
            origin_url=self._settings.origin_url(project, name, prefix),
            created_at=meta.get("creationTimestamp"),
        )


def _write(kind: Kind, body: Json) -> Write:
    taken = Conflict(
        code="lab.object_name_taken",
        field="name",
        params={"kind": kind.kind, "name": body["metadata"]["name"]},
    )
    # A quota that refuses the home volume's claim refuses what the request asked in `storage_gib`.
    return Write(kind, body, taken, field="storage_gib" if kind == CLAIM else None)


def _check_lab_name(value: str) -> str:
    name = check_name(value, field="name")
    if len(name) > MAX_LAB_NAME_LENGTH:
        raise ValidationFailed(
            code="lab.name_too_long",
            field="name",
            params={"name": name, "length": len(name), "most": MAX_LAB_NAME_LENGTH},
        )
    if _STARTS_WITH_LETTER.match(name) is None:
        raise ValidationFailed(code="lab.name_needs_letter", field="name", params={"name": name})
    return name
