"""Admin routes of the device catalog: the registration wizard's checks, saving, and the audit log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response, status

from nufi.api.auth import ADMIN_RESPONSES, AdminPrincipal
from nufi.api.problems import current_language
from nufi.api.schemas.audit import AuditPage, AuditRecord
from nufi.api.schemas.devices import DeviceTypeView, SavedDeviceType
from nufi.api.schemas.problem import CONFLICT, NOT_FOUND, ResponseDocs
from nufi.api.services import get_catalog
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.checks import MetricsCheck, MetricsCheckRequest, ResourceKeyCheck, ResourceKeyCheckRequest
from nufi.devices.spec import DeviceTypeCreate, DeviceTypeUpdate

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=ADMIN_RESPONSES)
Catalog = Annotated[DeviceCatalog, Depends(get_catalog)]
Force = Annotated[
    bool,
    Query(description="save even when no node advertises the resource key or a metric check fails; audited"),
]
# Every integer parameter is bounded, so none can overflow the database's integers (a 422, not a 500):
# revisions are a 32-bit column, offsets a SQL OFFSET.
_MAX_REVISION = 2**31 - 1
_MAX_OFFSET = 2**31 - 1
_CONFLICTS: ResponseDocs = {409: CONFLICT}
_ONE_TYPE: ResponseDocs = {404: NOT_FOUND}
_ONE_TYPE_CONFLICTS: ResponseDocs = {**_ONE_TYPE, **_CONFLICTS}


@router.post("/devices/check-resource-key", summary="Wizard step 1: is the resource key on the nodes?")
async def check_resource_key(
    request: ResourceKeyCheckRequest, principal: AdminPrincipal, catalog: Catalog
) -> ResourceKeyCheck:
    check = await catalog.check_resource_key(principal, request.resource_key, editing=request.editing)
    return check.worded(current_language())


@router.post("/devices/check-metrics", summary="Wizard step 2: do the labels and expressions work?")
async def check_metrics(
    request: MetricsCheckRequest, principal: AdminPrincipal, catalog: Catalog
) -> MetricsCheck:
    check = await catalog.check_metrics(principal, request.labels, request.metrics, fetcher=request.fetcher)
    return check.worded(current_language())


@router.post(
    "/devices",
    status_code=status.HTTP_201_CREATED,
    summary="Register a custom device type",
    responses=_CONFLICTS,
)
async def create_device_type(
    payload: DeviceTypeCreate,
    principal: AdminPrincipal,
    catalog: Catalog,
    response: Response,
    force: Force = False,
) -> SavedDeviceType:
    outcome = await catalog.create(principal, payload, force=force)
    response.headers["Location"] = f"/api/v1/devices/{outcome.device_type.id}"
    return SavedDeviceType.of(outcome)


@router.put(
    "/devices/{device_type_id}",
    summary="Change a device type (give the revision you edited)",
    responses=_ONE_TYPE_CONFLICTS,
)
async def update_device_type(
    device_type_id: str,
    payload: DeviceTypeUpdate,
    principal: AdminPrincipal,
    catalog: Catalog,
    force: Force = False,
) -> SavedDeviceType:
    return SavedDeviceType.of(await catalog.update(principal, device_type_id, payload, force=force))


@router.delete(
    "/devices/{device_type_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete a custom device type",
    responses=_ONE_TYPE_CONFLICTS,
)
async def delete_device_type(
    device_type_id: str,
    principal: AdminPrincipal,
    catalog: Catalog,
    revision: Annotated[
        int | None, Query(ge=1, le=_MAX_REVISION, description="only if still at this revision")
    ] = None,
) -> Response:
    await catalog.delete(principal, device_type_id, revision=revision)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/devices/{device_type_id}/reset",
    summary="Reset an official device type to its preset",
    responses=_ONE_TYPE,
)
async def reset_device_type(
    device_type_id: str, principal: AdminPrincipal, catalog: Catalog
) -> DeviceTypeView:
    return DeviceTypeView.of(await catalog.reset(principal, device_type_id))


@router.get("/audit", summary="The audit log, newest first")
async def audit_log(
    principal: AdminPrincipal,
    catalog: Catalog,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=_MAX_OFFSET)] = 0,
    target_id: str | None = None,
    actor: str | None = None,
) -> AuditPage:
    page = await catalog.audit(principal, limit=limit, offset=offset, target_id=target_id, actor=actor)
    return AuditPage(
        items=[AuditRecord.of(row) for row in page.items],
        total=page.total,
        limit=limit,
        offset=offset,
    )
