"""Bodies of a project's accelerator quota: the admin's PUT and what members read back."""

from __future__ import annotations

from pydantic import BaseModel, Field

from nufi.workloads.quotas.service import Figure, ProjectQuota


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
