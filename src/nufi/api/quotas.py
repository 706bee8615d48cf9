"""Accelerator quotas per project: members read them, admins replace them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter

from nufi.api.auth import ADMIN_RESPONSES, AUTH_RESPONSES, AdminPrincipal, CurrentPrincipal
from nufi.api.projects import PROJECT_RESPONSES, ProjectAccess
from nufi.api.schemas.problem import CONFLICT, NOT_FOUND
from nufi.api.schemas.quotas import QuotaView
from nufi.api.services import service
from nufi.workloads.quotas.request import QuotaRequest
from nufi.workloads.quotas.room import QUOTA_NAME
from nufi.workloads.quotas.service import QuotaService

Quotas = Annotated[QuotaService, service(lambda services: services.quotas)]

admin_router = APIRouter(prefix="/api/v1/admin/projects", tags=["admin"], responses=ADMIN_RESPONSES)
router = APIRouter(prefix="/api/v1/projects", tags=["projects"], responses=AUTH_RESPONSES)


@router.get(
    "/{project}/quotas",
    summary="The project's accelerator, storage and pod quota, with what is in use",
    responses=PROJECT_RESPONSES,
    dependencies=[ProjectAccess],
)
async def get_quota(project: str, principal: CurrentPrincipal, quotas: Quotas) -> QuotaView:
    return QuotaView.of(await quotas.read(principal, project), QUOTA_NAME)


@admin_router.put(
    "/{project}/quotas",
    summary="Replace the project's quota (devices per type id, storage, pods; an empty body removes it)",
    responses={404: NOT_FOUND, 409: CONFLICT},
)
async def put_quota(
    project: str, payload: QuotaRequest, principal: AdminPrincipal, quotas: Quotas
) -> QuotaView:
    return QuotaView.of(await quotas.replace(principal, project, payload.spec()), QUOTA_NAME)
