"""Bodies of the thermal routes: policies, the live status per node, the history, and a dry run."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, dataclasses

from nufi.api.schemas.values import Instant, Timestamp
from nufi.messages import MessageModel
from nufi.thermal.history.records import ThermalEvent
from nufi.thermal.policy import PolicyOverride, ThermalPolicy


class PolicyView(BaseModel):
    device_type: str
    policy: ThermalPolicy
    # `default` (the type's thermal defaults) or `admin` (set through PUT).
    source: str
    revision: int | None = None
    updated_by: str | None = None
    updated_at: Timestamp | None = None
    # Set while the stored policy no longer validates (the type's default applies, `source` default):
    # why, in English, and as a message.
    unreadable: str | None = None
    unreadable_message: MessageModel | None = None
    # Conditions switched on that can never trip, the type mapping nothing for them to read (health
    # for `unhealthy`, temperature): in English, and as messages.
    warnings: list[str] = []
    warning_messages: list[MessageModel] = []


class PolicyList(BaseModel):
    items: list[PolicyView]


class PodTrafficView(BaseModel):
    namespace: str
    name: str
    deployment: str
    traffic_on: bool
    # Why traffic is off (or, kept, why a hot pod keeps it), in English; `reason_message` is the same
    # as code and params, to word in any language.
    reason: str | None = None
    reason_message: MessageModel | None = None
    kept: bool = False


class NodeStatusView(BaseModel):
    node: str
    state: str
    temperature_celsius: float | None
    since: Instant
    hot: bool
    hot_devices: list[str]
    deployments: list[str]
    pods: list[PodTrafficView]
    stale_reason: str | None = None
    stale_reason_message: MessageModel | None = None
    # Health cuts it: the node as a whole (scope node) or these devices (scope device).
    unhealthy: bool = False
    unhealthy_devices: list[str] = []
    # The policy's own condition (`custom`) cuts it: the node as a whole, or these devices.
    custom: bool = False
    custom_devices: list[str] = []
    # Affected, but the circuit breaker holds it back: its traffic stays.
    held: bool = False


class BreakerView(BaseModel):
    """The circuit breaker over the type's nodes: at most `allowed` of `total_nodes` are cut at once;
    `held` while some affected nodes are held back (`waiting`), their traffic kept."""

    held: bool
    total_nodes: int
    allowed: int
    affected: list[str]
    cut: list[str]
    waiting: list[str]


class DeviceTypeStatusView(BaseModel):
    device_type: str
    policy: ThermalPolicy
    nodes: list[NodeStatusView]
    unusable: str | None = None
    unusable_message: MessageModel | None = None
    breaker: BreakerView | None = None


class StatusView(BaseModel):
    updated_at: Instant | None
    identity: str
    leader: bool
    holder: str | None
    types: list[DeviceTypeStatusView]
    # Deployments whose override annotation is unusable, in English; `problem_messages` the same as
    # messages of the catalogs.
    problems: list[str]
    problem_messages: list[MessageModel] = []


@dataclasses.dataclass(frozen=True)
class EventView(ThermalEvent):
    """A transition as the history stores it (`ThermalEvent`): stored, so with its id; its moment in
    ISO 8601 with its offset."""

    at: Timestamp
    # Required here: without `Field()` the record's default (None, not yet stored) would be inherited.
    id: int = Field()


class EventList(BaseModel):
    items: list[EventView]


class ReplayTransitionView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    at: Instant
    # `hot`, `unhealthy` or `tripped` (the policy's own condition) when a condition trips; `normal`.
    to: str
    condition: str
    # The reading that made it: °C for temperature, 1 (unhealthy) or 0, the own expression's value.
    value: float
    # The same as `value` for temperature, null for the other conditions.
    temperature: float | None


class NodeReplayView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    key: str
    transitions: list[ReplayTransitionView]
    cut_seconds: float
    # How long a condition tripped it while the breaker kept its traffic on.
    held_seconds: float
    max_temperature: float | None


class EpisodeView(BaseModel):
    """One would-be trip of one condition: traffic cut at `start`, restored at `end` (null: still cut
    when the range ends); the peak is the worst reading from the first at or beyond the trip on;
    `held_seconds` of it the breaker would have kept the traffic on."""

    model_config = ConfigDict(from_attributes=True)

    node: str
    # Set with scope `device`.
    device: str | None
    condition: str
    start: Instant
    end: Instant | None
    peak: float
    # The same as `peak` for temperature, null for the other conditions.
    peak_celsius: float | None
    held_seconds: float


class BreakerHoldView(BaseModel):
    """While more nodes were affected than the breaker allows (`allowed` of `total_nodes`), `waiting`
    kept their traffic; `end` null: still so when the range ends."""

    model_config = ConfigDict(from_attributes=True)

    start: Instant
    end: Instant | None
    allowed: int
    total_nodes: int
    waiting: list[str]


class DryRunView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    device_type: str
    policy: ThermalPolicy
    start: Instant
    end: Instant
    # The replay's step: each point is the worst reading over the step before it.
    step_seconds: float
    # The policy's conditions replayed (unhealthy only where the type maps health).
    conditions: list[str]
    nodes: list[NodeReplayView]
    # Every would-be trip, by start.
    episodes: list[EpisodeView] = []
    breaker: list[BreakerHoldView] = []
    # Why conditions the policy switches on were left out (or can trip nothing): in English, and as
    # messages.
    left_out: list[str] = []
    left_out_messages: list[MessageModel] = []


class DryRunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    policy: ThermalPolicy
    # RFC 3339 or Unix seconds; default: the 24 hours before `end` (default now).
    start: str | None = None
    end: str | None = None


class OverrideView(BaseModel):
    device_type: str
    # None: the deployment follows its device type's policy.
    override: PolicyOverride | None
    # The policy thermal control applies to the deployment.
    effective: ThermalPolicy
    # Set when the override goes beyond its type's policy's bounds (or no longer makes a valid policy
    # with it): why, and then `effective` is the type's own policy.
    not_honoured: str | None = None
    not_honoured_message: MessageModel | None = None
