"""Change events: what one part of NuFi tells the others, and every subscriber of each, listed here.

A publisher keeps its own hook (`DeviceCatalog.on_change`, `ThermalService.on_policy_change`,
`ProjectService.on_access_change`, `WebSessions.on_end`) and knows nothing of who follows; `wire` turns
each hook into an event and `SUBSCRIBERS` names who follows it. A subscriber runs before the change is
answered and must be quick (it forgets a cache entry, wakes a loop); work that takes longer is a
follow-up, run after the answer as a task this module keeps: its failure is logged and counted, and
closing waits for the follow-ups under way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nufi.alerts.sync import RuleSync
from nufi.auth.web_sessions import WebSessions
from nufi.devices.catalog import DeviceCatalog
from nufi.logging import get_logger
from nufi.monitoring.service import MonitoringService
from nufi.thermal.service import ThermalService
from nufi.workloads.labs.service import LabService
from nufi.workloads.quotas.service import QuotaService

_log = get_logger("nufi.events")


@dataclass(frozen=True)
class _OfType:
    device_type_id: str


class DeviceTypeChanged(_OfType):
    """A type was created, edited, reset or deleted through this replica."""


class PolicyChanged(_OfType):
    """A type's thermal policy was written through this replica."""


@dataclass(frozen=True)
class SessionEnded:
    """This replica ended a dashboard session (signed out, expired, refused by the issuer)."""

    session_hash: str


@dataclass(frozen=True)
class Parts:
    """Who follows the events."""

    monitoring: MonitoringService
    quotas: QuotaService
    rules: RuleSync
    labs: LabService


@dataclass(frozen=True)
class FollowUp:
    """A subscriber whose work runs after the change is answered."""

    name: str
    run: Callable[[Any], Awaitable[None]]


Subscriber = Callable[[Any], None] | FollowUp


def subscribers(parts: Parts) -> dict[type, tuple[Subscriber, ...]]:
    """Every event and who follows it, in the order they are told."""
    return {
        DeviceTypeChanged: (
            # The next read of the type looks it up in the catalog again.
            lambda e: parts.monitoring.type_changed(e.device_type_id),
            # The type's alerting rules converge at once.
            lambda e: parts.rules.changed(e.device_type_id),
            # A key edit or a deletion is followed in every project's quota; it cannot wait for every
            # namespace before answering.
            FollowUp("quota-follow", lambda e: parts.quotas.follow_type(e.device_type_id)),
        ),
        # The hot rule follows the thermal policy's trip.
        PolicyChanged: (lambda e: parts.rules.changed(e.device_type_id),),
        # The lab sockets opened under the session close at once.
        SessionEnded: (lambda e: parts.labs.sockets.session_ended(e.session_hash),),
    }


class Events:
    def __init__(self, parts: Parts) -> None:
        self._subscribers = subscribers(parts)
        self._following: set[asyncio.Task[None]] = set()
        self.failures = 0

    def publish(self, event: object) -> None:
        for subscriber in self._subscribers.get(type(event), ()):
            if isinstance(subscriber, FollowUp):
                self._follow(subscriber, event)
            else:
                subscriber(event)

    def _follow(self, follow_up: FollowUp, event: object) -> None:
        try:
            running = asyncio.get_running_loop()
            task = running.create_task(self._quietly(follow_up, event), name=follow_up.name)
        except RuntimeError:
            return  # no loop: nothing serves, nothing to follow
        self._following.add(task)
        task.add_done_callback(self._following.discard)

    async def _quietly(self, follow_up: FollowUp, event: object) -> None:
        # Nobody awaits a follow-up: what goes wrong is logged and counted here.
        try:
            await follow_up.run(event)
        except Exception as exc:
            self.failures += 1
            _log.warning("follow-up failed", follow_up=follow_up.name, change=repr(event), error=str(exc))

    async def wait_following(self) -> None:
        """Wait for the follow-ups under way (a shutdown lets them finish their writes)."""
        while self._following:
            await asyncio.gather(*self._following, return_exceptions=True)


def wire(
    events: Events,
    *,
    catalog: DeviceCatalog,
    thermal: ThermalService,
    web_sessions: WebSessions | None,
) -> None:
    """Turn each publisher's hook into its event."""
    catalog.on_change(lambda device_type_id: events.publish(DeviceTypeChanged(device_type_id)))
    thermal.on_policy_change(lambda device_type_id: events.publish(PolicyChanged(device_type_id)))
    if web_sessions is not None:
        web_sessions.on_end(lambda session_hash: events.publish(SessionEnded(session_hash)))
