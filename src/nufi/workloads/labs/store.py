"""A lab's objects in the cluster, found, written and removed in the lab's words.

`LabStore` is what `LabService` does to the cluster besides creating a lab (`workload_apply`, as
every kind): find a lab's top object (its Notebook, or a StatefulSet of its own), list the parts
labelled as the lab's, remove objects, and start or stop a lab. A refusal from the cluster becomes a
domain error (a name already taken is a 409 on `name`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from nufi.cluster.kube_rest import Json
from nufi.cluster.labs import CLAIM, NOTEBOOK, SERVICE, STATEFULSET, LabObjects
from nufi.cluster.objects import Kind
from nufi.cluster.workload_apply import refused_as
from nufi.errors import Conflict, NotFound
from nufi.logging import get_logger
from nufi.workloads.labels import WORKLOAD
from nufi.workloads.labs.manifests import STOPPED_ANNOTATION
from nufi.workloads.labs.reading import Found, claim_name, is_lab, lab_selector, object_name

_log = get_logger("nufi.workloads")
# What a lab may be made of, top objects first: deleting in this order leaves the garbage collector
# little to do.
_PARTS: tuple[Kind, ...] = (NOTEBOOK, STATEFULSET, SERVICE, CLAIM)


class LabStore:
    def __init__(self, objects: LabObjects) -> None:
        self._objects = objects

    async def find(self, project: str, name: str) -> Found | None:
        with refused_as():
            notebook = await self._objects.get(NOTEBOOK, project, name)
            if notebook is not None and is_lab(notebook):
                return Found("notebook", notebook)
            sts = await self._objects.get(STATEFULSET, project, name)
        if sts is not None and is_lab(sts) and not (sts.get("metadata") or {}).get("ownerReferences"):
            return Found("statefulset", sts)
        return None

    async def require(self, project: str, name: str) -> Found:
        found = await self.find(project, name)
        if found is None:
            raise NotFound(code="lab.no_such_lab", project=project, lab=name)
        return found

    async def parts(self, project: str, name: str) -> list[tuple[Kind, str]]:
        selector = f"{lab_selector()},{WORKLOAD}={name}"
        found: list[tuple[Kind, str]] = []
        with refused_as():
            for kind in _PARTS:
                found += [
                    (kind, object_name(obj))
                    for obj in await self._objects.list(kind, project, label_selector=selector)
                ]
        return found

    async def remove_parts(self, project: str, name: str) -> None:
        for kind, part in await self.parts(project, name):
            await self.remove(kind, project, part)

    async def remove_top(self, project: str, name: str, found: Found) -> None:
        await self.remove(NOTEBOOK if found.backend == "notebook" else STATEFULSET, project, name)

    async def complete(self, project: str, name: str, found: Found) -> bool:
        """Whether every part the lab's backend needs is there."""
        with refused_as():
            claim = await self._objects.get(CLAIM, project, claim_name(name))
            service = (
                await self._objects.get(SERVICE, project, name) if found.backend == "statefulset" else {}
            )
        return claim is not None and service is not None

    async def switch(self, project: str, name: str, found: Found, *, running: bool) -> Json:
        """Start or stop the lab; its top object as the cluster then shows it."""
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
        with _refused(kind, name):
            return await self._objects.merge_patch(kind, project, name, patch)

    async def remove(self, kind: Kind, project: str, name: str) -> None:
        with _refused(kind, name):
            await self._objects.delete(kind, project, name)


def _refused(kind: Kind, name: str) -> AbstractContextManager[None]:
    taken = Conflict(code="lab.object_name_taken", field="name", params={"kind": kind.kind, "name": name})
    # A quota that refuses the home volume's claim refuses what the request asked in `storage_gib`.
    return refused_as(taken=taken, field="storage_gib" if kind == CLAIM else None)
