"""A device pack document: one device type with its protection policy and alert thresholds, as YAML.

The models are the format: unknown fields, kinds and apiVersions are refused (extra="forbid", literals),
and the published JSON Schema (`docs/device-pack.schema.json`) is generated from them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from nufi.alerts.thresholds import AlertThresholds
from nufi.devices.spec import REVISION_MAX, SLUG_PATTERN, DeviceTypeFields, Slug
from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy

ApiVersion = Literal["nufi.io/v1"]
Kind = Literal["DeviceType"]
API_VERSION: ApiVersion = "nufi.io/v1"
KIND: Kind = "DeviceType"
# What a pack's spec holds beyond the type itself; the type's own fields are the rest.
SECTIONS = ("protection", "alerts")
_SLUG_MAX = 63
SCHEMA_ID = "https://nufi.io/schemas/device-pack.schema.json"


class PackMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Slug = Field(description="The device type's id.")
    # Only read on apply: the revision the pack was made from; a different current revision conflicts.
    revision: int | None = Field(
        default=None,
        ge=1,
        le=REVISION_MAX,
        strict=True,
        description="Apply only if the type is still at this revision (never written by export).",
    )

    @field_validator("name")
    @classmethod
    def _id_syntax(cls, value: str) -> str:
        # The same rule, and the same message, as a new type's id in the devices API.
        if len(value) > _SLUG_MAX or re.fullmatch(SLUG_PATTERN, value) is None:
            problem = Message("device_type.id_syntax", {"id": value})
            raise PydanticCustomError(problem.code, problem.text("en"), dict(problem.params))
        return value


class PackSpec(DeviceTypeFields):
    """Everything a device type holds, plus the admin's protection policy and alert thresholds."""

    protection: ThermalPolicy | None = Field(
        default=None, description="The type's protection (thermal) policy; left out: not managed here."
    )
    alerts: AlertThresholds | None = Field(
        default=None, description="The type's alert thresholds; left out: not managed here."
    )

    def type_fields(self) -> dict[str, Any]:
        """The device type's own fields, as the catalog's models take them."""
        return self.model_dump(exclude=set(SECTIONS))


class DevicePack(BaseModel):
    """One document of a device pack."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_by_alias=True, validate_by_name=True)

    api_version: ApiVersion = Field(alias="apiVersion")
    kind: Kind
    metadata: PackMetadata
    spec: PackSpec

    @property
    def name(self) -> str:
        return self.metadata.name

    def document(self) -> dict[str, Any]:
        """The canonical document: every field with a value, in the models' order, nulls left out."""
        data: dict[str, Any] = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one pack document, as published in docs/device-pack.schema.json."""
    schema = DevicePack.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
