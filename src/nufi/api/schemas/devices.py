"""Response bodies of the device catalog: device types with their inventory, and saved types.

Each extends `DeviceType`, so a type's own fields keep its order and documentation.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from nufi.devices.capacity import Inventory, NodeInventory
from nufi.devices.catalog import CatalogEntry, SaveOutcome
from nufi.devices.spec import DeviceType


class NodeCounts(BaseModel):
    model_config = ConfigDict(from_attributes=True, frozen=True)

    node: str
    capacity: int
    allocatable: int
    allocated: int


class InventoryCounts(BaseModel):
    model_config = ConfigDict(frozen=True)

    nodes: int = Field(description="nodes that advertise the resource key")
    capacity: int
    allocatable: int
    allocated: int

    @classmethod
    def of(cls, inventory: Inventory) -> InventoryCounts:
        return cls(**_counts(inventory))


class InventoryPerNode(InventoryCounts):
    per_node: list[NodeCounts]

    @classmethod
    def of(cls, inventory: Inventory) -> InventoryPerNode:
        return cls(**_counts(inventory), per_node=[_node(n) for n in inventory.nodes])


def _counts(inventory: Inventory) -> dict[str, int]:
    return {
        "nodes": inventory.nodes_with_devices,
        "capacity": inventory.capacity,
        "allocatable": inventory.allocatable,
        "allocated": inventory.allocated,
    }


def _node(node: NodeInventory) -> NodeCounts:
    return NodeCounts.model_validate(node, from_attributes=True)


def _is_none(value: object) -> bool:
    return value is None


_INVENTORY_ERROR = Field(
    default=None,
    exclude_if=_is_none,
    description="why `inventory` is null (the cluster cannot be read, or the type's fetcher is missing); "
    "absent otherwise",
)


def _present_fields_required(schema: dict[str, Any], model: type[Any]) -> None:
    fields: dict[str, Any] = model.model_fields
    schema["required"] = [name for name, info in fields.items() if info.exclude_if is None]


class _DeviceTypeBody(DeviceType):
    model_config = ConfigDict(json_schema_extra=_present_fields_required)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # DeviceType writes its keys identity first through a wrap serializer, which would stand for the
        # whole body in the document as "any object"; describe the fields the serializer writes instead.
        fields = {key: value for key, value in core_schema.items() if key != "serialization"}
        return handler(cast(CoreSchema, fields))


class DeviceTypeView(_DeviceTypeBody):
    """A device type as stored."""

    @classmethod
    def of(cls, device_type: DeviceType) -> DeviceTypeView:
        return cls(**dict(device_type))


class DeviceTypeWithInventory(_DeviceTypeBody):
    """A device type in the list, with its totals over the cluster."""

    inventory: InventoryCounts | None
    inventory_error: str | None = _INVENTORY_ERROR

    @classmethod
    def of(cls, entry: CatalogEntry) -> DeviceTypeWithInventory:
        inventory = InventoryCounts.of(entry.inventory) if entry.inventory is not None else None
        return cls(**dict(entry.device_type), inventory=inventory, inventory_error=entry.inventory_error)


class DeviceTypeDetail(_DeviceTypeBody):
    """One device type, with its inventory per node."""

    inventory: InventoryPerNode | None
    inventory_error: str | None = _INVENTORY_ERROR

    @classmethod
    def of(cls, entry: CatalogEntry) -> DeviceTypeDetail:
        inventory = InventoryPerNode.of(entry.inventory) if entry.inventory is not None else None
        return cls(**dict(entry.device_type), inventory=inventory, inventory_error=entry.inventory_error)


class DeviceTypeList(BaseModel):
    items: list[DeviceTypeWithInventory]


class SavedDeviceType(_DeviceTypeBody):
    """The device type as stored, with the check warnings its save passed over: in English
    (`warnings`) and as messages (`warning_messages`, each a `{code, params}`, in the same order)."""

    warnings: list[str]
    warning_messages: list[dict[str, Any]] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: SaveOutcome) -> SavedDeviceType:
        return cls(
            **dict(outcome.device_type), warnings=outcome.warnings, warning_messages=outcome.warning_messages
        )
