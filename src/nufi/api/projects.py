"""Projects: admins create and delete them and manage members; everyone lists their own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Response, status

from nufi.api.auth import ADMIN_RESPONSES, AUTH_RESPONSES, AdminPrincipal, CurrentPrincipal
from nufi.api.schemas.problem import CONFLICT, NOT_FOUND, ResponseDocs, problem
from nufi.api.schemas.workloads import (
    AcceleratorList,
    AcceleratorView,
    ProjectCreate,
    ProjectDeletionView,
    ProjectList,
    ProjectView,
)
from nufi.api.services import service
from nufi.workloads.accelerators import AcceleratorService
from nufi.workloads.projects.service import Project, ProjectService

FORBIDDEN = problem("Not a member of this project (answered whether the project exists or not).")
PROJECT_RESPONSES: ResponseDocs = {**AUTH_RESPONSES, 403: FORBIDDEN, 404: NOT_FOUND}


Projects = Annotated[ProjectService, service(lambda services: services.projects)]
Accelerators = Annotated[AcceleratorService, service(lambda services: services.accelerators)]


async def project_access(project: str, principal: CurrentPrincipal, projects: Projects) -> Project:
    """A route dependency for `/api/v1/projects/{project}/...`: dependencies run before the body is
    validated, so a non-member gets 403 whatever they send, never a 422 that tells the route exists
    for them. The service checks again; this only decides the order."""
    return await projects.require_access(principal, project)


ProjectAccess = Depends(project_access)
_Route = TypeVar("_Route", bound=Callable[..., Any])


def workload_router(plural: str) -> APIRouter:
    """The routes of one kind of a project's workloads, `/api/v1/projects/{project}/<plural>`.
    Membership is checked before the body is read: a non-member gets 403 whatever they send."""
    return APIRouter(
        prefix=f"/api/v1/projects/{{project}}/{plural}",
        tags=[plural],
        responses=PROJECT_RESPONSES,
        dependencies=[ProjectAccess],
    )


def creating(router: APIRouter, summary: str, **options: Any) -> Callable[[_Route], _Route]:
    """The route that creates one: 201 with its `Location` (`located`), 409 when its name is taken."""
    return router.post(
        "", status_code=status.HTTP_201_CREATED, summary=summary, responses={409: CONFLICT}, **options
    )


def deleting(router: APIRouter, summary: str) -> Callable[[_Route], _Route]:
    """The route that deletes one by name: 204."""
    return router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT, summary=summary)


def located(response: Response, path: str) -> None:
    response.headers["Location"] = path


admin_router = APIRouter(prefix="/api/v1/admin/projects", tags=["admin"], responses=ADMIN_RESPONSES)
router = APIRouter(prefix="/api/v1/projects", tags=["projects"], responses=AUTH_RESPONSES)


@creating(admin_router, "Create a project (a namespace) with its members")
async def create_project(
    payload: ProjectCreate, principal: AdminPrincipal, projects: Projects, response: Response
) -> ProjectView:
    project = await projects.create(principal, payload.name, payload.members)
    located(response, f"/api/v1/projects/{project.name}")
    return ProjectView.of(project)


@admin_router.delete(
    "/{name}",
    summary="Delete a project and everything in it (?dry_run=true lists what would go)",
    responses={404: NOT_FOUND},
)
async def delete_project(
    name: str,
    principal: AdminPrincipal,
    projects: Projects,
    dry_run: Annotated[bool, Query(description="list what would be deleted, delete nothing")] = False,
) -> ProjectDeletionView:
    return ProjectDeletionView.of(await projects.delete(principal, name, dry_run=dry_run))


@admin_router.put(
    "/{name}/members/{username}", summary="Add a member (idempotent)", responses={404: NOT_FOUND}
)
async def add_member(name: str, username: str, principal: AdminPrincipal, projects: Projects) -> ProjectView:
    return ProjectView.of(await projects.add_member(principal, name, username))


@admin_router.delete(
    "/{name}/members/{username}", summary="Remove a member (idempotent)", responses={404: NOT_FOUND}
)
async def remove_member(
    name: str, username: str, principal: AdminPrincipal, projects: Projects
) -> ProjectView:
    return ProjectView.of(await projects.remove_member(principal, name, username))


@router.get("", summary="The caller's projects (every project for an admin)")
async def list_projects(principal: CurrentPrincipal, projects: Projects) -> ProjectList:
    return ProjectList(items=[ProjectView.of(p) for p in await projects.visible_projects(principal)])


@router.get("/{project}", summary="One project", responses=PROJECT_RESPONSES)
async def get_project(found: Annotated[Project, ProjectAccess]) -> ProjectView:
    return ProjectView.of(found)


@router.get(
    "/{project}/accelerators",
    summary="Enabled device types present in the cluster, with free counts per node and the project's quota",
    responses=PROJECT_RESPONSES,
    dependencies=[ProjectAccess],
)
async def list_accelerators(
    project: str, principal: CurrentPrincipal, accelerators: Accelerators
) -> AcceleratorList:
    offers = await accelerators.available(principal, project)
    return AcceleratorList(items=[AcceleratorView.of(o) for o in offers])
