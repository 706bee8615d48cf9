"""A project's quotas as an admin asks for them, validated once for both faces: the API's PUT body and
the dashboard's quota editor refuse the same values, naming the same field."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nufi.cluster.resources import BYTES, check_quantity
from nufi.workloads.quotas.room import QuotaSpec

MAX_QUOTA_COUNT = 1_000_000
Count = Annotated[int, Field(ge=0, le=MAX_QUOTA_COUNT)]


class QuotaRequest(BaseModel):
    # strict: `"pods": "20"` or `"lpu": true` is refused, not read as a number.
    model_config = ConfigDict(extra="forbid", strict=True)

    devices: dict[str, Count] = Field(
        default_factory=dict,
        description="the most devices the project may request, per device type id; absent: no limit",
        examples=[{"lpu": 4}],
    )
    storage: str | None = Field(
        None,
        description="the most storage its volume claims may request (requests.storage)",
        examples=["100Gi"],
    )
    pods: Count | None = Field(None, description="the most pods it may have")

    @field_validator("storage")
    @classmethod
    def _storage(cls, value: str | None) -> str | None:
        if value is not None and value != "0":
            check_quantity(value, BYTES)
        return value

    def spec(self) -> QuotaSpec:
        return QuotaSpec(devices=dict(self.devices), storage=self.storage, pods=self.pods)
