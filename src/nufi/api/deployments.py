"""Inference deployments in a project: create, list, read, scale, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import Response

from nufi.api.auth import CurrentPrincipal
from nufi.api.projects import creating, deleting, located, workload_router
from nufi.api.schemas.workloads import DeploymentDetail, DeploymentList
from nufi.api.services import service
from nufi.workloads.deployments.service import DeploymentService
from nufi.workloads.deployments.spec import DeploymentCreate, ReplicasPatch

Deployments = Annotated[DeploymentService, service(lambda services: services.deployments)]
router = workload_router("deployments")


@creating(router, "Deploy an inference server (a Deployment and a Service) on an accelerator")
async def create_deployment(
    project: str,
    payload: DeploymentCreate,
    principal: CurrentPrincipal,
    deployments: Deployments,
    response: Response,
) -> DeploymentDetail:
    view = await deployments.create(principal, project, payload)
    located(response, f"/api/v1/projects/{project}/deployments/{view.name}")
    return DeploymentDetail.of(view)


@router.get("", summary="The project's deployments with their status")
async def list_deployments(
    project: str, principal: CurrentPrincipal, deployments: Deployments
) -> DeploymentList:
    return DeploymentList(items=[DeploymentDetail.of(v) for v in await deployments.list(principal, project)])


@router.get("/{name}", summary="One deployment: status, pods, access URLs")
async def get_deployment(
    project: str, name: str, principal: CurrentPrincipal, deployments: Deployments
) -> DeploymentDetail:
    return DeploymentDetail.of(await deployments.get(principal, project, name))


@router.patch("/{name}", summary="Scale a deployment")
async def scale_deployment(
    project: str, name: str, payload: ReplicasPatch, principal: CurrentPrincipal, deployments: Deployments
) -> DeploymentDetail:
    return DeploymentDetail.of(await deployments.scale(principal, project, name, payload.replicas))


@deleting(router, "Delete a deployment and its Service")
async def delete_deployment(
    project: str, name: str, principal: CurrentPrincipal, deployments: Deployments
) -> None:
    await deployments.delete(principal, project, name)
