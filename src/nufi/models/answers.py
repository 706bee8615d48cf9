"""What a client reads of the API's answers: typed, so a wrong answer fails where it is parsed.

Each view names only the fields a client relies on and keeps the rest as they came (`extra="allow"`),
so `body()` gives back the API's own body for scripts while a person's table reads typed fields.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

Item = TypeVar("Item", bound="View")
# An int stays an int: a script reading `-o json` gets the number the API wrote.
Number = int | float


class View(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    def body(self) -> dict[str, Any]:
        """The answer as the API gave it: the fields it held, no defaults added."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude_unset=True)
        return data


class Listing(View, Generic[Item]):
    items: list[Item]


class Me(View):
    username: str
    is_admin: bool = False


class NodeInventory(View):
    node: str
    capacity: int = 0
    allocatable: int = 0
    allocated: int = 0


class Inventory(View):
    """A type's devices in the cluster: in all, and per node where the API says (one type's detail)."""

    nodes: int = 0
    capacity: int = 0
    allocatable: int = 0
    allocated: int = 0
    per_node: list[NodeInventory] = []


class DeviceTypeRow(View):
    id: str
    name: str
    vendor: str | None = None
    kind: str | None = None
    resource_key: str
    enabled: bool | None = None
    revision: int | None = None
    fetcher: str | None = None
    labels: dict[str, Any] | None = None
    metrics: dict[str, Any] | None = None
    inventory: Inventory | None = None
    inventory_error: str | None = None

    @property
    def health_mapped(self) -> bool:
        """Whether the type maps a health expression (without one, every device's health is unknown)."""
        return bool((self.metrics or {}).get("health"))


class ResourceKeyVerdict(View):
    valid: bool
    found: bool
    message: str | None = None


class MetricVerdict(View):
    ok: bool
    error: str | None = None


class MetricsVerdict(View):
    ok: bool
    results: dict[str, MetricVerdict] = {}


class Accelerator(View):
    device_type: str
    count: int


class Workload(View):
    """What deployments and labs share: a name, the accelerators asked for, and how it is doing."""

    name: str
    accelerator: Accelerator
    status: str | None = None
    reason: str | None = None
    image: str | None = None


class DeploymentUrls(View):
    # The Service's address inside the cluster, where other workloads reach the deployment.
    cluster: str | None = None
    api_proxy: str | None = None


class Deployment(Workload):
    replicas: int = 0
    ready_replicas: int = 0
    port: int | None = None
    urls: DeploymentUrls | None = None


class LabActivity(View):
    """What NuFi last read from a running lab's own server."""

    state: str
    last_active: str | None = None
    read_at: str | None = None


class Lab(Workload):
    kind: str | None = None
    url: str
    origin_url: str | None = None
    storage_gib: int | None = None
    # Only a Ready lab is read; the others have none.
    activity: LabActivity | None = None


class Project(View):
    name: str
    namespace: str | None = None
    members: list[str] = []


class ThermalNode(View):
    node: str
    state: str | None = None
    temperature_celsius: Number | None = None
    hot: bool | None = None
    deployments: list[str] = []


class ThermalPolicyTrip(View):
    trip_celsius: Number | None = None


class ThermalType(View):
    device_type: str
    policy: ThermalPolicyTrip | None = None
    nodes: list[ThermalNode] = []


class ThermalStatus(View):
    holder: str | None = None
    updated_at: str | None = None
    types: list[ThermalType] = []
    problems: list[str] = []


class DeviceSample(View):
    device: str | None = None
    utilization_percent: Number | None = None
    memory_used_bytes: Number | None = None
    memory_total_bytes: Number | None = None
    temperature_celsius: Number | None = None
    power_watts: Number | None = None
    health: str | None = None
    pod: str | None = None
    namespace: str | None = None


class SnapshotNode(View):
    node: str
    devices: list[DeviceSample] = []


class SnapshotSummary(View):
    nodes: int = 0
    devices: int = 0


class Snapshot(View):
    device_type: str
    time: str | None = None
    summary: SnapshotSummary = SnapshotSummary()
    nodes: list[SnapshotNode] = []


class ProblemBody(View):
    """A problem answer (RFC 9457) with NuFi's own members; any of them may be missing."""

    title: str | None = None
    detail: str | None = None
    code: str | None = None
    field: str | None = None
    request_id: str | None = None
    retry_after_seconds: int | None = None
