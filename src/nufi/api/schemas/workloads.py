"""Response and request bodies of projects, accelerators and deployments."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nufi.messages import Message, MessageModel
from nufi.workloads.accelerators import AcceleratorOffer
from nufi.workloads.deployments.status import Status
from nufi.workloads.deployments.view import DeploymentView
from nufi.workloads.deployments.view import PodView as DomainPod
from nufi.workloads.projects.service import Project, ProjectDeletion


def reason_fields(reason: Message | None) -> dict[str, Any]:
    """A workload's `reason` (English) and `reason_message` (to word in any language), for every kind."""
    if reason is None:
        return {"reason": None, "reason_message": None}
    return {"reason": reason.text("en"), "reason_message": MessageModel.of(reason)}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ProjectCreate(_Body):
    name: str = Field(description="a DNS-1123 label; also the namespace's name", examples=["team-a"])
    members: list[str] = Field(default_factory=list, max_length=1000, description="usernames")


class ProjectView(BaseModel):
    name: str
    namespace: str
    members: list[str]

    @classmethod
    def of(cls, project: Project) -> ProjectView:
        return cls(name=project.name, namespace=project.name, members=list(project.members))


class ProjectList(BaseModel):
    items: list[ProjectView]


class ProjectObjectView(BaseModel):
    kind: str
    name: str


class ProjectDeletionView(BaseModel):
    project: ProjectView
    dry_run: bool = Field(description="true: nothing was deleted, `objects` is what would go")
    objects: list[ProjectObjectView] = Field(description="NuFi's workload objects and every pod in it")

    @classmethod
    def of(cls, deletion: ProjectDeletion) -> ProjectDeletionView:
        return cls(
            project=ProjectView.of(deletion.project),
            dry_run=deletion.dry_run,
            objects=[ProjectObjectView(kind=o.kind, name=o.name) for o in deletion.objects],
        )


class NodeOfferView(BaseModel):
    node: str
    capacity: int
    allocatable: int
    free: int


class AcceleratorView(BaseModel):
    device_type: str
    name: str
    vendor: str
    resource_key: str
    capacity: int
    allocatable: int
    free: int = Field(description="allocatable minus what bound, unfinished pods hold")
    nodes: list[NodeOfferView]
    quota: int | None = Field(
        None,
        description="the most devices of the type the project may request (its tightest quota); null: none",
    )
    in_use: int | None = Field(None, description="what that quota counts in use by the project")

    @classmethod
    def of(cls, offer: AcceleratorOffer) -> AcceleratorView:
        # The view is the record as it stands, its nodes included.
        return cls.model_validate(offer, from_attributes=True)


class AcceleratorList(BaseModel):
    items: list[AcceleratorView]


class PodView(BaseModel):
    name: str
    node: str | None
    phase: str
    ready: bool
    accelerators: dict[str, int] = Field(description="devices held per resource key")
    devices: list[str] = Field(
        description="the device IDs it holds, as the type's exporter attributes them in monitoring; "
        "empty until it does"
    )
    traffic_on: bool = Field(
        default=True, description="false while thermal control keeps its Service's traffic away (hot node)"
    )
    thermal_reason: str | None = Field(
        default=None, description="why its traffic is off, or why a hot pod was kept routable"
    )
    thermal_reason_message: MessageModel | None = Field(
        default=None, description="the same reason as a message of the catalogs, to word in any language"
    )

    @classmethod
    def of(cls, pod: DomainPod) -> PodView:
        message = pod.thermal_message
        return cls.model_validate(
            {**asdict(pod), "thermal_reason_message": None if message is None else MessageModel.of(message)}
        )


class DeploymentUrlsView(BaseModel):
    cluster: str = Field(description="the Service's DNS name, for clients inside the cluster")
    api_proxy: str = Field(
        description="the API server's services proxy path, relative to the Kubernetes API URL"
    )


class DeploymentAccelerator(BaseModel):
    device_type: str
    resource_key: str
    count: int


class DeploymentDetail(BaseModel):
    project: str
    name: str
    image: str
    accelerator: DeploymentAccelerator
    replicas: int
    ready_replicas: int
    port: int
    status: Status = Field(description="see docs/workloads.md for what each status means")
    reason: str | None = Field(
        description="why it is Pending (or Degraded/Error), in the accelerator's words (English)"
    )
    reason_message: MessageModel | None = Field(
        default=None, description="the reason as a message code and its params, to word in any language"
    )
    pods: list[PodView]
    urls: DeploymentUrlsView
    created_at: str | None

    @classmethod
    def of(cls, view: DeploymentView) -> DeploymentDetail:
        # The view is the record, its accelerator gathered and its reasons worded for every reader.
        return cls.model_validate(
            {
                **asdict(view),
                "accelerator": DeploymentAccelerator.model_validate(view, from_attributes=True),
                **reason_fields(view.reason),
                "pods": [PodView.of(pod) for pod in view.pods],
            }
        )


class DeploymentList(BaseModel):
    items: list[DeploymentDetail]
