"""The labs API's responses."""

from __future__ import annotations

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from nufi.workloads.labs import Lab
from nufi.workloads.labs.model import Backend, LabKind, LabStatus


class LabAcceleratorView(BaseModel):
    device_type: str
    resource_key: str = Field(description="the extended resource in the pod's limits, e.g. hyperaccel.ai/lpu")
    count: int


class LabView(BaseModel):
    project: str
    name: str
    kind: LabKind
    image: str
    backend: Backend = Field(
        description="notebook: a Kubeflow Notebook (the cluster has its CRD); statefulset: NuFi's own"
    )
    accelerator: LabAcceleratorView
    storage_gib: int
    status: LabStatus
    # Absent unless Pending (what the lab waits for, in the accelerator's words) or Error.
    reason: str | SkipJsonSchema[None] = Field(default=None, description="why Pending, or what broke")
    url: str = Field(description="the path on NuFi that opens the lab, e.g. /labs/<project>/<name>/")
    created_at: str | SkipJsonSchema[None] = None

    @classmethod
    def of(cls, lab: Lab) -> LabView:
        return cls(
            project=lab.project,
            name=lab.name,
            kind=lab.kind,
            image=lab.image,
            backend=lab.backend,
            accelerator=LabAcceleratorView(
                device_type=lab.accelerator.device_type,
                resource_key=lab.accelerator.resource_key,
                count=lab.accelerator.count,
            ),
            storage_gib=lab.storage_gib,
            status=lab.status,
            reason=lab.reason,
            url=lab.url,
            created_at=lab.created_at,
        )


class LabList(BaseModel):
    items: list[LabView]
