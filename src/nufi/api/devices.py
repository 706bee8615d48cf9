"""Device types as every signed-in user sees them, with what the cluster holds of each."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from nufi.api.auth import AUTH_RESPONSES, CurrentPrincipal
from nufi.api.schemas.devices import DeviceTypeDetail, DeviceTypeList, DeviceTypeWithInventory
from nufi.api.schemas.problem import NOT_FOUND
from nufi.api.services import get_catalog
from nufi.devices.catalog import DeviceCatalog

router = APIRouter(prefix="/api/v1/devices", tags=["devices"], responses=AUTH_RESPONSES)
Catalog = Annotated[DeviceCatalog, Depends(get_catalog)]


@router.get("", summary="List device types with their inventory")
async def list_device_types(
    principal: CurrentPrincipal,
    catalog: Catalog,
    enabled: Annotated[
        bool | None, Query(description="only enabled (true) or disabled (false) types")
    ] = None,
) -> DeviceTypeList:
    entries = await catalog.list_with_inventory(principal, enabled=enabled)
    return DeviceTypeList(items=[DeviceTypeWithInventory.of(entry) for entry in entries])


@router.get(
    "/{device_type_id}", summary="One device type with its inventory per node", responses={404: NOT_FOUND}
)
async def get_device_type(
    device_type_id: str, principal: CurrentPrincipal, catalog: Catalog
) -> DeviceTypeDetail:
    return DeviceTypeDetail.of(await catalog.get_with_inventory(principal, device_type_id))
