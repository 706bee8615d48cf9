"""Labs: Jupyter and VS Code servers in a project, with an accelerator and a home volume.

Every method takes the caller's principal: a project's members and admins may do everything with
its labs, anyone else gets 403 (`ProjectService.require_access`). Creating writes the objects one
after another and, when one is refused, deletes those already written before reporting the refusal,
so nothing half-made is left in the cluster. Deleting removes everything the lab was made of.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from nufi.auth import Principal
from nufi.cluster.kube_rest import Json, KubeRefused
from nufi.cluster.labs import CLAIM, NOTEBOOK, POD, SERVICE, STATEFULSET, Kind, LabObjects
from nufi.config import Settings
from nufi.errors import Conflict, NotFound, NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.workloads.accelerators import AcceleratorService, Placement
from nufi.workloads.kube_errors import refused
from nufi.workloads.labels import DEVICE_TYPE, MANAGED_BY, MANAGED_BY_NUFI, WORKLOAD, WORKLOAD_KIND
from nufi.workloads.labs import manifests
from nufi.workloads.labs.manifests import LAB_KIND_ANNOTATION, STOPPED_ANNOTATION, STORAGE_ANNOTATION
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
    notebook_prefix,
    statefulset_prefix,
)
from nufi.workloads.labs.status import observe
from nufi.workloads.names import check_name
from nufi.workloads.projects import ProjectService

_log = get_logger("nufi.workloads")
_STARTS_WITH_LETTER = re.compile(r"[a-z]")


@dataclass(frozen=True)
class LabSettings:
    jupyter_image: str
    vscode_image: str

    @classmethod
    def from_settings(cls, settings: Settings) -> LabSettings:
        return cls(jupyter_image=settings.lab_jupyter_image, vscode_image=settings.lab_vscode_image)

    def image_for(self, kind: LabKind) -> str:
        return self.jupyter_image if kind == "jupyter" else self.vscode_image


@dataclass(frozen=True)
class _Found:
    backend: Backend
    top: Json


class LabService:
    def __init__(
        self,
        projects: ProjectService,
        accelerators: AcceleratorService,
        objects: LabObjects,
        settings: LabSettings,
    ) -> None:
        self._projects = projects
        self._accelerators = accelerators
        self._objects = objects
        self._settings = settings

    # -- reads ---------------------------------------------------------------------------------------

    async def list_labs(self, principal: Principal | None, project: str) -> list[Lab]:
        await self._projects.require_access(principal, project)
        selector = _lab_selector()
        found = [
            _Found("notebook", nb)
            for nb in await self._objects.list(NOTEBOOK, project, label_selector=selector)
        ]
        notebooks = {_name(f.top) for f in found}
        for sts in await self._objects.list(STATEFULSET, project, label_selector=selector):
            # The Notebook controller's StatefulSets carry the Notebook's labels; the Notebook stands
            # for them.
            if _name(sts) not in notebooks and not (sts.get("metadata") or {}).get("ownerReferences"):
                found.append(_Found("statefulset", sts))
        labs = [await self._view(project, f) for f in found]
        return sorted(labs, key=lambda lab: lab.name)

    async def get(self, principal: Principal | None, project: str, name: str) -> Lab:
        await self._projects.require_access(principal, project)
        return await self._view(project, await self._require(project, name))

    async def route(self, principal: Principal | None, project: str, name: str) -> LabRoute:
        """Where the lab proxy sends the caller's traffic for a lab; 403 / 404 as for `get`."""
        await self._projects.require_access(principal, project)
        found = await self._require(project, name)
        profile = PROFILES[_kind(found.top)]
        prefix = _prefix(found.backend, project, name)
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
        name = _check_lab_name(request.name)
        placement = await self._accelerators.resolve(request.accelerator, field="accelerator")
        if await self._find(project, name) is not None:
            raise Conflict(
                f"project {project!r} already has a lab named {name!r}; choose another name", field="name"
            )
        try:
            served = await self._objects.notebooks_served()
        except KubeRefused as exc:
            raise refused(exc) from None
        backend: Backend = "notebook" if served else "statefulset"
        plan = manifests.LabPlan(
            project=project,
            name=name,
            kind=request.kind,
            image=request.image or self._settings.image_for(request.kind),
            storage_gib=request.storage_gib,
            placement=placement,
            profile=PROFILES[request.kind],
        )
        steps: list[tuple[Kind, Json]] = [(CLAIM, manifests.claim(plan))]
        if backend == "notebook":
            steps.append((NOTEBOOK, manifests.notebook(plan)))
        else:
            steps += [(SERVICE, manifests.service(plan)), (STATEFULSET, manifests.statefulset(plan))]
        created: list[tuple[Kind, str]] = []
        top: Json = {}
        try:
            for kind, body in steps:
                top = await self._write(kind, project, body)
                created.append((kind, body["metadata"]["name"]))
        except BaseException:
            await self._undo(project, created)
            raise
        _log.info("lab created", project=project, lab=name, kind=request.kind, backend=backend)
        return await self._view(project, _Found(backend, top))

    async def stop(self, principal: Principal | None, project: str, name: str) -> Lab:
        return await self._set_running(principal, project, name, running=False)

    async def start(self, principal: Principal | None, project: str, name: str) -> Lab:
        return await self._set_running(principal, project, name, running=True)

    async def delete(self, principal: Principal | None, project: str, name: str) -> None:
        await self._projects.require_access(principal, project)
        found = await self._require(project, name)
        kinds: list[Kind] = [NOTEBOOK] if found.backend == "notebook" else [STATEFULSET, SERVICE]
        for kind in kinds:
            await self._remove(kind, project, name)
        await self._remove(CLAIM, project, _claim_name(name))
        _log.info("lab deleted", project=project, lab=name, backend=found.backend)

    # -- inside --------------------------------------------------------------------------------------

    async def _set_running(
        self, principal: Principal | None, project: str, name: str, *, running: bool
    ) -> Lab:
        await self._projects.require_access(principal, project)
        found = await self._require(project, name)
        if found.backend == "notebook":
            # Custom resources take no strategic merge; a merge patch sets or removes the annotation.
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            patch: dict[str, Any] = {
                "metadata": {"annotations": {STOPPED_ANNOTATION: None if running else stamp}}
            }
            kind = NOTEBOOK
        else:
            patch = {"spec": {"replicas": 1 if running else 0}}
            kind = STATEFULSET
        try:
            top = await self._objects.merge_patch(kind, project, name, patch)
        except KubeRefused as exc:
            raise _refusal(exc, kind, name) from None
        return await self._view(project, _Found(found.backend, top))

    async def _require(self, project: str, name: str) -> _Found:
        found = await self._find(project, name)
        if found is None:
            raise NotFound(f"project {project!r} has no lab named {name!r}", project=project, lab=name)
        return found

    async def _find(self, project: str, name: str) -> _Found | None:
        try:
            notebook = await self._objects.get(NOTEBOOK, project, name)
            if notebook is not None and _is_lab(notebook):
                return _Found("notebook", notebook)
            sts = await self._objects.get(STATEFULSET, project, name)
        except KubeRefused as exc:
            raise refused(exc) from None
        if sts is not None and _is_lab(sts) and not (sts.get("metadata") or {}).get("ownerReferences"):
            return _Found("statefulset", sts)
        return None

    async def _write(self, kind: Kind, project: str, body: Json) -> Json:
        try:
            return await self._objects.create(kind, project, body)
        except KubeRefused as exc:
            raise _refusal(exc, kind, body["metadata"]["name"]) from None

    async def _undo(self, project: str, created: list[tuple[Kind, str]]) -> None:
        for kind, name in reversed(created):
            try:
                await self._objects.delete(kind, project, name)
            except (KubeRefused, NufiError) as exc:
                # The original refusal is what the caller must hear; this one goes to the log.
                _log.error("lab rollback left an object behind", kind=kind.kind, name=name, error=str(exc))

    async def _remove(self, kind: Kind, project: str, name: str) -> None:
        try:
            await self._objects.delete(kind, project, name)
        except KubeRefused as exc:
            raise _refusal(exc, kind, name) from None

    async def _view(self, project: str, found: _Found) -> Lab:
        top = found.top
        meta = top.get("metadata") or {}
        name = str(meta.get("name"))
        annotations = meta.get("annotations") or {}
        kind = _kind(top)
        container = _container(top, found.backend)
        limits = (container.get("resources") or {}).get("limits") or {}
        device_type = (meta.get("labels") or {}).get(DEVICE_TYPE, "")
        resource_key, count = next(iter(limits.items()), ("", "0"))
        try:
            pod = await self._objects.get(POD, project, f"{name}-0")
        except KubeRefused as exc:
            raise refused(exc) from None
        observed = observe(top, found.backend, pod)
        reason = observed.detail
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
        prefix = _prefix(found.backend, project, name)
        return Lab(
            project=project,
            name=name,
            kind=kind,
            image=str(container.get("image") or ""),
            backend=found.backend,
            accelerator=LabAccelerator(device_type=device_type, resource_key=resource_key, count=int(count)),
            storage_gib=_int(annotations.get(STORAGE_ANNOTATION)),
            status=observed.status,
            reason=reason,
            url=prefix,
            created_at=meta.get("creationTimestamp"),
        )


def _check_lab_name(value: str) -> str:
    name = check_name(value, field="name")
    if len(name) > MAX_LAB_NAME_LENGTH:
        raise ValidationFailed(
            f"name {name!r} is {len(name)} characters long; a lab's name may have at most "
            f"{MAX_LAB_NAME_LENGTH} (its pods and revisions are named after it)",
            field="name",
        )
    if _STARTS_WITH_LETTER.match(name) is None:
        raise ValidationFailed(
            f"name {name!r} must start with a letter: it also names the lab's Service (e.g. 'lab-{name}')",
            field="name",
        )
    return name


def _refusal(exc: KubeRefused, kind: Kind, name: str) -> NufiError:
    if exc.status == 409:
        return Conflict(
            f"a {kind.kind} named {name!r} already exists in the project; choose another name for the lab",
            field="name",
        )
    return refused(exc)


def _prefix(backend: Backend, project: str, name: str) -> str:
    return notebook_prefix(project, name) if backend == "notebook" else statefulset_prefix(project, name)


def _lab_selector() -> str:
    return f"{MANAGED_BY}={MANAGED_BY_NUFI},{WORKLOAD_KIND}=lab"


def _is_lab(obj: Json) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return (
        labels.get(MANAGED_BY) == MANAGED_BY_NUFI
        and labels.get(WORKLOAD_KIND) == "lab"
        and WORKLOAD in labels
    )


def _kind(top: Json) -> LabKind:
    value = ((top.get("metadata") or {}).get("annotations") or {}).get(LAB_KIND_ANNOTATION)
    return "vscode" if value == "vscode" else "jupyter"


def _container(top: Json, backend: Backend) -> Json:
    template = (top.get("spec") or {}).get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or [{}]
    first: Json = containers[0]
    return first


def _claim_name(name: str) -> str:
    return f"{name}-home"


def _name(obj: Json) -> str:
    return str((obj.get("metadata") or {}).get("name"))


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0
