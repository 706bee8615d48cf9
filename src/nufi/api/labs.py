"""Routes of a project's labs: create, list, read, stop, start, delete. Opening one is the lab proxy's
(`nufi.api.labproxy.proxy`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Response

from nufi.api.auth import CurrentPrincipal
from nufi.api.projects import creating, deleting, located, workload_router
from nufi.api.schemas.labs import LabList, LabView
from nufi.api.services import service
from nufi.workloads.labs.model import LabRequest
from nufi.workloads.labs.service import LabService

Labs = Annotated[LabService, service(lambda services: services.labs)]
ProjectName = Annotated[str, Path(max_length=63, description="the project (its namespace)")]
LabName = Annotated[str, Path(max_length=63, description="the lab's name")]

router = workload_router("labs")


@creating(router, "Create a Jupyter or VS Code lab", response_model_exclude_none=True)
async def create_lab(
    project: ProjectName, payload: LabRequest, principal: CurrentPrincipal, labs: Labs, response: Response
) -> LabView:
    lab = await labs.create(principal, project, payload)
    located(response, f"/api/v1/projects/{project}/labs/{lab.name}")
    return LabView.of(lab)


@router.get("", summary="The project's labs", response_model_exclude_none=True)
async def list_labs(project: ProjectName, principal: CurrentPrincipal, labs: Labs) -> LabList:
    return LabList(items=[LabView.of(lab) for lab in await labs.list_labs(principal, project)])


@router.get("/{name}", summary="One lab, with its status", response_model_exclude_none=True)
async def get_lab(project: ProjectName, name: LabName, principal: CurrentPrincipal, labs: Labs) -> LabView:
    return LabView.of(await labs.get(principal, project, name))


@router.post("/{name}/stop", summary="Stop a lab (its home volume stays)", response_model_exclude_none=True)
async def stop_lab(project: ProjectName, name: LabName, principal: CurrentPrincipal, labs: Labs) -> LabView:
    return LabView.of(await labs.stop(principal, project, name))


@router.post("/{name}/start", summary="Start a stopped lab again", response_model_exclude_none=True)
async def start_lab(project: ProjectName, name: LabName, principal: CurrentPrincipal, labs: Labs) -> LabView:
    return LabView.of(await labs.start(principal, project, name))


@deleting(router, "Delete a lab and everything it was made of")
async def delete_lab(project: ProjectName, name: LabName, principal: CurrentPrincipal, labs: Labs) -> None:
    await labs.delete(principal, project, name)
