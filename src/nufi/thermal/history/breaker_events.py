"""What the replica that acts records when a type's breaker starts or stops holding nodes back: a
Kubernetes Event on each node held back or let go, an audit record, and a log line. The status says it
on every replica, and `nufi_protection_breaker_held` on /metrics feeds the generated alerting rule."""

from __future__ import annotations

from collections.abc import Iterable

from nufi.cluster import ClusterGateway
from nufi.cluster.traffic import record_event
from nufi.logging import get_logger
from nufi.thermal.history.records import ThermalRecords
from nufi.thermal.protection.breaker import BreakerStatus
from nufi.thermal.protection.status import DeviceTypeStatus

COMPONENT = "nufi-thermal"
HELD, RELEASED = "protection.breaker_held", "protection.breaker_released"
_log = get_logger("nufi.thermal")


class BreakerAnnouncements:
    """Announces each change of what a type's breaker holds back, once, whichever replica acts.

    A replica that starts acting (at its start, or taking over the Lease) reads what was last
    announced from the audit log, so a breaker already holding is not announced again.
    """

    def __init__(self, cluster: ClusterGateway, records: ThermalRecords, identity: str) -> None:
        self._cluster = cluster
        self._records = records
        self._identity = identity
        # Per type, the nodes last announced as held back; None while this replica does not act.
        self._held: dict[str, tuple[str, ...]] | None = None

    def stop_acting(self) -> None:
        """Another replica may announce from now on: what this one knew is no longer the last word."""
        self._held = None

    async def announce(self, types: Iterable[DeviceTypeStatus]) -> None:
        if self._held is None:
            self._held = await self._last_announced()
        for status in types:
            breaker = status.breaker
            # No breaker this pass (the type unread, say) announces nothing: the last word stands.
            if breaker is None:
                continue
            before = self._held.get(status.device_type, ())
            if breaker.waiting == before:
                continue
            self._held[status.device_type] = breaker.waiting
            await breaker_changed(
                self._cluster, self._records, self._identity, status.device_type, breaker, before
            )

    async def _last_announced(self) -> dict[str, tuple[str, ...]]:
        try:
            audited = await self._records.last_audited(COMPONENT, (HELD, RELEASED))
        except Exception as exc:  # unread, a holding breaker is announced again: a repeat, not a loss
            _log.warning("last breaker announcements not read", error=str(exc))
            return {}
        return {
            device_type: tuple(str(node) for node in after.get("held_back", ()))
            for device_type, after in audited.items()
        }


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
    action = HELD if breaker.held else RELEASED
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
