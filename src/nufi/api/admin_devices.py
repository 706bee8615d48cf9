"""Admin routes of the device catalog: the registration wizard's checks, saving, and the audit log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response, status

from nufi.api.auth import ADMIN_RESPONSES, AdminPrincipal
from nufi.api.services import get_catalog
from nufi.devices.catalog import DeviceCatalog, SaveOutcome
from nufi.devices.checks import MetricsCheck, MetricsCheckRequest, ResourceKeyCheck, ResourceKeyCheckRequest
from nufi.devices.spec import DeviceType, DeviceTypeCreate, DeviceTypeUpdate

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=ADMIN_RESPONSES)
Catalog = Annotated[DeviceCatalog, Depends(get_catalog)]
Force = Annotated[
    bool,
    Query(description="save even when no node advertises the resource key or a metric check fails; audited"),
]


def _saved(outcome: SaveOutcome) -> dict[str, Any]:
    body: dict[str, Any] = outcome.device_type.model_dump(mode="json")
    body["warnings"] = outcome.warnings
    return body


@router.post("/devices/check-resource-key", summary="Wizard step 1: is the resource key on the nodes?")
async def check_resource_key(
    request: ResourceKeyCheckRequest, principal: AdminPrincipal, catalog: Catalog
) -> ResourceKeyCheck:
    return await catalog.check_resource_key(principal, request.resource_key)


@router.post("/devices/check-metrics", summary="Wizard step 2: do the labels and expressions work?")
async def check_metrics(
    request: MetricsCheckRequest, principal: AdminPrincipal, catalog: Catalog
) -> MetricsCheck:
    return await catalog.check_metrics(principal, request.labels, request.metrics)


@router.post("/devices", status_code=status.HTTP_201_CREATED, summary="Register a custom device type")
async def create_device_type(
    payload: DeviceTypeCreate,
    principal: AdminPrincipal,
    catalog: Catalog,
    response: Response,
    force: Force = False,
) -> dict[str, Any]:
    outcome = await catalog.create(principal, payload, force=force)
    response.headers["Location"] = f"/api/v1/devices/{outcome.device_type.id}"
    return _saved(outcome)


@router.put("/devices/{device_type_id}", summary="Change a device type (give the revision you edited)")
async def update_device_type(
    device_type_id: str,
    payload: DeviceTypeUpdate,
    principal: AdminPrincipal,
    catalog: Catalog,
    force: Force = False,
) -> dict[str, Any]:
    return _saved(await catalog.update(principal, device_type_id, payload, force=force))


@router.delete(
    "/devices/{device_type_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete a custom device type"
)
async def delete_device_type(
    device_type_id: str,
    principal: AdminPrincipal,
    catalog: Catalog,
    revision: Annotated[int | None, Query(ge=1, description="only if still at this revision")] = None,
) -> Response:
    await catalog.delete(principal, device_type_id, revision=revision)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/devices/{device_type_id}/reset", summary="Reset an official device type to its preset")
async def reset_device_type(device_type_id: str, principal: AdminPrincipal, catalog: Catalog) -> DeviceType:
    return await catalog.reset(principal, device_type_id)


@router.get("/audit", summary="The audit log, newest first")
async def audit_log(
    principal: AdminPrincipal,
    catalog: Catalog,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
    target_id: str | None = None,
    actor: str | None = None,
) -> dict[str, Any]:
    page = await catalog.audit(principal, limit=limit, offset=offset, target_id=target_id, actor=actor)
    return {
        "items": [row.as_dict() for row in page.items],
        "total": page.total,
        "limit": limit,
        "offset": offset,
    }
