"""What thermal control knows right now, as the API and dashboard show it."""

from __future__ import annotations

from dataclasses import dataclass

from nufi.messages import Message
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.breaker import BreakerStatus
from nufi.thermal.protection.hysteresis import ThermalState


@dataclass(frozen=True)
class PodTraffic:
    namespace: str
    name: str
    deployment: str
    traffic_on: bool
    # Why its traffic is off, or why a hot pod keeps it (kept=True); `.text(language)` words it.
    reason: Message | None = None
    kept: bool = False


@dataclass(frozen=True)
class NodeStatus:
    node: str
    state: ThermalState
    temperature_celsius: float | None
    since: float
    # Traffic is cut on this node (it stays cut while the node is stale).
    hot: bool
    # Devices over the trip temperature, with scope `device`.
    hot_devices: tuple[str, ...]
    deployments: tuple[str, ...]
    pods: tuple[PodTraffic, ...]
    stale_reason: Message | None = None
    # Health cuts it: the node as a whole (scope `node`), or these devices (scope `device`).
    unhealthy: bool = False
    unhealthy_devices: tuple[str, ...] = ()
    # The policy's own (custom) condition cuts it, likewise.
    custom: bool = False
    custom_devices: tuple[str, ...] = ()
    # Affected, but the breaker holds it back: its traffic stays.
    held: bool = False


@dataclass(frozen=True)
class DeviceTypeStatus:
    device_type: str
    policy: ThermalPolicy
    nodes: tuple[NodeStatus, ...]
    unusable: Message | None = None
    breaker: BreakerStatus | None = None


@dataclass(frozen=True)
class ThermalStatus:
    updated_at: float | None
    # This replica's identity and whether it is the one acting (the Lease holder).
    identity: str
    leader: bool
    holder: str | None
    types: tuple[DeviceTypeStatus, ...]
    # Deployments whose override annotation is unusable, with why (`thermal.override_unusable`).
    problems: tuple[Message, ...] = ()


def node_marks(status: ThermalStatus | None, device_type: str) -> dict[str, str]:
    """The nodes of `device_type` thermal control marks: `held` (affected, but the circuit breaker
    holds it back), `hot` (traffic cut), `kept` (hot, but every pod on it still serves: the last
    replica of its deployment), `unhealthy` (traffic cut from its unhealthy devices) or `stale` (no
    usable temperature)."""
    marks: dict[str, str] = {}
    for entry in status.types if status is not None else ():
        if entry.device_type == device_type and entry.policy.enabled:
            for node in entry.nodes:
                if node.held:
                    marks[node.node] = "held"
                elif node.state == "stale":
                    marks[node.node] = "stale"
                elif node.hot:
                    kept = bool(node.pods) and all(pod.traffic_on for pod in node.pods)
                    marks[node.node] = "kept" if kept else "hot"
                elif node.unhealthy or node.custom:
                    marks[node.node] = "unhealthy"
    return marks
