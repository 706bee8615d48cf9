"""Bodies of a project's accelerator quota: the admin's PUT and what members read back."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nufi.cluster.resources import check_quantity
from nufi.workloads.quota_room import QuotaSpec
from nufi.workloads.quotas import Figure, ProjectQuota

MAX_QUOTA_COUNT = 1_000_000


class QuotaWrite(BaseModel):
    # strict: `"pods": "20"` or `"lpu": true` is refused, not read as a number.
    model_config = ConfigDict(extra="forbid", strict=True)

    devices: dict[str, Annotated[int, Field(ge=0, le=MAX_QUOTA_COUNT)]] = Field(
        default_factory=dict,
        description="the most devices the project may request, per device type id; absent: no limit",
        examples=[{"lpu": 4}],
    )
    storage: str | None = Field(
        None,
        description="the most storage its volume claims may request (requests.storage)",
        examples=["100Gi"],
    )
    pods: int | None = Field(None, ge=0, le=MAX_QUOTA_COUNT, description="the most pods it may have")

    @field_validator("storage")
    @classmethod
    def _storage(cls, value: str | None) -> str | None:
        if value is not None and value != "0":
            check_quantity(value)
        return value

    def spec(self) -> QuotaSpec:
        return QuotaSpec(devices=dict(self.devices), storage=self.storage, pods=self.pods)


class DeviceQuotaView(BaseModel):
    device_type: str
    resource_key: str
    hard: int = Field(description="the most devices the project may request")
    used: int = Field(description="what the quota counts in use (its status.used)")


class FigureView(BaseModel):
    hard: str
    used: str

    @classmethod
    def of(cls, figure: Figure | None) -> FigureView | None:
        return None if figure is None else cls(hard=figure.hard, used=figure.used)


class QuotaView(BaseModel):
    project: str
    name: str = Field(description="the ResourceQuota NuFi writes in the project's namespace")
    devices: list[DeviceQuotaView]
    storage: FigureView | None = Field(description="requests.storage; null: not limited")
    pods: FigureView | None = Field(description="null: not limited")

    @classmethod
    def of(cls, quota: ProjectQuota, name: str) -> QuotaView:
        return cls(
            project=quota.project,
            name=name,
            devices=[
                DeviceQuotaView(
                    device_type=d.device_type, resource_key=d.resource_key, hard=d.hard, used=d.used
                )
                for d in quota.devices
            ],
            storage=FigureView.of(quota.storage),
            pods=FigureView.of(quota.pods),
        )
