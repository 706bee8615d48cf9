"""Response bodies of the monitoring snapshot and overview, built from `nufi.monitoring` objects.

Values are in %, bytes (whole numbers), °C and W; a quantity not reported, stale, or implausible is
null.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, computed_field

from nufi.api.schemas.values import Instant, MaybeBytes
from nufi.devices.spec import DeviceKind, MetricKey
from nufi.monitoring.snapshots.overview import Overview, OverviewRow
from nufi.monitoring.snapshots.paging import SnapshotPage
from nufi.monitoring.snapshots.snapshot import ErrorSource, Health, MonitoringError, Snapshot


class _FromDomain(BaseModel):
    model_config = ConfigDict(from_attributes=True, frozen=True)


class DeviceView(_FromDomain):
    device: str
    utilization_percent: float | None
    memory_used_bytes: MaybeBytes
    memory_total_bytes: MaybeBytes
    temperature_celsius: float | None
    power_watts: float | None
    health: Health = Field(
        description="`unknown` when the type maps no health expression, or the device's health sample "
        "is missing, stale or neither 1 nor 0"
    )
    pod: str | None = Field(description="the pod using the device, when known for certain")
    namespace: str | None


class PodHoldingView(_FromDomain):
    namespace: str
    pod: str
    devices: int = Field(description="how many devices of the type the pod holds on the node")


class NodeView(_FromDomain):
    node: str
    capacity: int | None = Field(description="null when the cluster could not be read")
    allocatable: int | None
    allocated: int | None
    pods: list[PodHoldingView] | None = Field(description="pods holding the type's devices; null likewise")
    workload: str | None = Field(description="who uses the node's devices, e.g. `serving/solo`")
    devices: list[DeviceView]


class SummaryView(_FromDomain):
    nodes: int
    devices: int
    avg_utilization_percent: float | None
    memory_used_bytes: MaybeBytes
    memory_total_bytes: MaybeBytes
    max_temperature_celsius: float | None
    power_watts: float | None


Seconds = Annotated[float, PlainSerializer(lambda seconds: round(seconds, 3), return_type=float)]


class NotReportingView(_FromDomain):
    node: str
    capacity: int = Field(description="devices of the type the node advertises, none of which reports")


class StaleMetricView(_FromDomain):
    metric: MetricKey
    node: str
    device: str
    last_seen: Instant
    silent_seconds: Seconds
    last_value: float | None = Field(
        description="the last value the quantity gave, in the snapshot's units (null for `memory_free`, "
        "which only gives the total)"
    )
    limit_seconds: float = Field(exclude=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reason(self) -> str:
        return (
            f"no sample for {self.silent_seconds:.1f} s, more than three scrape intervals "
            f"({self.limit_seconds:g} s); its exporter or scrape target may be down"
        )


class MonitoringErrorView(_FromDomain):
    source: ErrorSource
    metric: str | None
    node: str | None
    device: str | None
    query: str | None
    # In English; `code` and `params` are the same as a message of the catalogs (docs/messages.md),
    # null for a problem that came without a code.
    message: str
    code: str | None = None
    params: dict[str, Any] | None = None


class SnapshotView(_FromDomain):
    device_type: str
    time: Instant = Field(description="the instant the type was evaluated at")
    age_seconds: Seconds = Field(
        description="how long before this answer the type was evaluated; it keeps growing while "
        "Prometheus cannot be reached and the last good snapshot is served"
    )
    summary: SummaryView = Field(description="the whole type, whatever page this is")
    nodes: list[NodeView]
    stale: list[StaleMetricView]
    not_reporting: list[NotReportingView] = Field(
        description="nodes advertising devices of the type while none of them reports a metric"
    )
    errors: list[MonitoringErrorView]

    @classmethod
    def of(cls, snapshot: Snapshot) -> SnapshotView:
        return cls.model_validate(snapshot, from_attributes=True)


class SnapshotPageView(SnapshotView):
    model_config = ConfigDict(
        from_attributes=True, frozen=True, serialize_by_alias=True, validate_by_name=True
    )

    matched_nodes: int = Field(description="nodes matching `node`, over all pages")
    continue_: str | None = Field(
        alias="continue",
        description="pass as `continue` for the next page; null on the last page",
    )

    @classmethod
    def of_page(cls, page: SnapshotPage) -> SnapshotPageView:
        base = SnapshotView.of(page.snapshot)
        return cls.model_validate(
            {**dict(base), "matched_nodes": page.matched_nodes, "continue": page.continue_token}
        )


class OverviewRowView(_FromDomain):
    device_type: str
    name: str
    vendor: str
    kind: DeviceKind
    resource_key: str
    time: Instant | None = Field(description="null when none of the type's queries could be answered")
    summary: SummaryView | None
    age_seconds: Seconds | None
    stale_count: int
    not_reporting_count: int
    errors: list[MonitoringErrorView]

    @classmethod
    def of(cls, row: OverviewRow) -> OverviewRowView:
        device_type, snapshot = row.device_type, row.snapshot
        errors: tuple[MonitoringError, ...] = (*(snapshot.errors if snapshot else ()), *row.errors)
        return cls(
            device_type=device_type.id,
            name=device_type.name,
            vendor=device_type.vendor,
            kind=device_type.kind,
            resource_key=device_type.resource_key,
            time=snapshot.time if snapshot else None,
            summary=SummaryView.model_validate(snapshot.summary) if snapshot else None,
            age_seconds=snapshot.age_seconds if snapshot else None,
            stale_count=len(snapshot.stale) if snapshot else 0,
            not_reporting_count=len(snapshot.not_reporting) if snapshot else 0,
            errors=[MonitoringErrorView.model_validate(error) for error in errors],
        )


class OverviewView(_FromDomain):
    items: list[OverviewRowView]

    @classmethod
    def of(cls, overview: Overview) -> OverviewView:
        return cls(items=[OverviewRowView.of(row) for row in overview.rows])
