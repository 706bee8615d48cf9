"""Device types as every signed-in user sees them, with what the cluster holds of each."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from nufi.api.auth import AUTH_RESPONSES, CurrentPrincipal
from nufi.api.services import get_catalog
from nufi.devices.capacity import Inventory
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceType
from nufi.errors import NufiError

router = APIRouter(prefix="/api/v1/devices", tags=["devices"], responses=AUTH_RESPONSES)
Catalog = Annotated[DeviceCatalog, Depends(get_catalog)]


def inventory_view(inventory: Inventory, *, per_node: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "nodes": len([n for n in inventory.nodes if n.capacity]),
        "capacity": inventory.capacity,
        "allocatable": inventory.allocatable,
        "allocated": inventory.allocated,
    }
    if per_node:
        view["per_node"] = [
            {"node": n.node, "capacity": n.capacity, "allocatable": n.allocatable, "allocated": n.allocated}
            for n in inventory.nodes
        ]
    return view


async def _with_inventory(
    catalog: DeviceCatalog, principal: CurrentPrincipal, types: list[DeviceType], *, per_node: bool
) -> list[dict[str, Any]]:
    try:
        inventories = await catalog.inventories(principal, types)
        error = None
    except NufiError as exc:
        # The catalog stays readable while the cluster is not; the inventory says why it is missing.
        inventories, error = {}, exc.detail
    rows = []
    for device_type in types:
        row: dict[str, Any] = device_type.model_dump(mode="json")
        found = inventories.get(device_type.id)
        row["inventory"] = inventory_view(found, per_node=per_node) if found else None
        if error is not None:
            row["inventory_error"] = error
        rows.append(row)
    return rows


@router.get("", summary="List device types with their inventory")
async def list_device_types(
    principal: CurrentPrincipal,
    catalog: Catalog,
    enabled: Annotated[
        bool | None, Query(description="only enabled (true) or disabled (false) types")
    ] = None,
) -> dict[str, Any]:
    types = await catalog.list(principal)
    if enabled is not None:
        types = [t for t in types if t.enabled is enabled]
    return {"items": await _with_inventory(catalog, principal, types, per_node=False)}


@router.get("/{device_type_id}", summary="One device type with its inventory per node")
async def get_device_type(
    device_type_id: str, principal: CurrentPrincipal, catalog: Catalog
) -> dict[str, Any]:
    device_type = await catalog.get(principal, device_type_id)
    return (await _with_inventory(catalog, principal, [device_type], per_node=True))[0]
