"""What the replica that acts records when a type's breaker starts or stops holding nodes back: a
Kubernetes Event on each node held back or let go, an audit record, and a log line. The status says it
on every replica, and `nufi_protection_breaker_held` on /metrics feeds the generated alerting rule."""

from __future__ import annotations

from nufi.cluster import ClusterGateway
from nufi.cluster.traffic import record_event
from nufi.logging import get_logger
from nufi.thermal.breaker import BreakerStatus
from nufi.thermal.history import ThermalRecords

COMPONENT = "nufi-thermal"
_log = get_logger("nufi.thermal")


async def breaker_changed(
    cluster: ClusterGateway,
    records: ThermalRecords,
    identity: str,
    device_type: str,
    breaker: BreakerStatus,
    before: tuple[str, ...],
) -> None:
    held = [node for node in breaker.waiting if node not in before]
    released = [node for node in before if node not in breaker.waiting]
    share = f"{breaker.allowed} of {breaker.total_nodes} nodes"
    for node in held:
        message = (
            f"{node} is affected but kept serving: the circuit breaker of {device_type} lets protection cut "
            f"{share} at once, and {', '.join(breaker.cut)} are cut"
        )
        await _event(cluster, identity, node, "ProtectionBreakerHeld", message, warning=True)
    for node in released:
        message = f"the circuit breaker of {device_type} no longer holds {node} back"
        await _event(cluster, identity, node, "ProtectionBreakerReleased", message, warning=False)
    action = "protection.breaker_held" if breaker.held else "protection.breaker_released"
    details = {
        "allowed": breaker.allowed,
        "total_nodes": breaker.total_nodes,
        "affected": list(breaker.affected),
        "cut": list(breaker.cut),
        "held_back": list(breaker.waiting),
        "previously_held_back": list(before),
    }
    try:
        await records.audit(COMPONENT, action, device_type, details)
    except Exception as exc:  # a record, not the action: failing to write it must not stop protection
        _log.warning("breaker change not audited", error=str(exc))
    _log.warning("protection breaker", device_type=device_type, **details)


async def _event(
    cluster: ClusterGateway, identity: str, node: str, reason: str, message: str, *, warning: bool
) -> None:
    try:
        await record_event(
            cluster,
            namespace="default",
            kind="Node",
            name=node,
            uid=None,
            reason=reason,
            message=message,
            type_="Warning" if warning else "Normal",
            instance=identity,
        )
    except Exception as exc:
        _log.warning("breaker event not recorded", error=str(exc))
