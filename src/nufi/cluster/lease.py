"""Leader election through a coordination.k8s.io/v1 Lease, the way client-go's leaderelection does it.

Create the Lease when absent; while another identity holds it and it has not expired, wait. Expiry is
judged by this replica's own clock: the time it last saw the Lease record change, plus the lease
duration (never the holder's renewTime, written by another machine's clock). Taking over or renewing is
an update naming the Lease's resourceVersion, so of two candidates one wins and the other gets 409. A
leader that cannot renew within the renew deadline stops leading. Closing releases the Lease (empty
holder, duration 1 s) so another replica takes over at once.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from nufi.background.jobs import THERMAL_LEASE
from nufi.background.periodic import Periodic
from nufi.cluster.gateway import ClusterGateway
from nufi.cluster.kube_rest import Json, KubeRefused, api_path, request_json
from nufi.cluster.service_account import own_service_account
from nufi.config import Settings
from nufi.errors import DependencyUnavailable
from nufi.logging import get_logger

_COORDINATION = "coordination.k8s.io/v1"
_log = get_logger("nufi.cluster.lease")


def micro_time(at: float) -> str:
    """MicroTime: RFC 3339 with exactly six fractional digits."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElector:
    def __init__(
        self,
        cluster: ClusterGateway,
        *,
        namespace: str,
        name: str,
        identity: str,
        lease_seconds: float = 15.0,
        renew_deadline_seconds: float = 10.0,
        retry_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._cluster = cluster
        self._path = api_path(_COORDINATION, "leases", namespace)
        self._object = api_path(_COORDINATION, "leases", namespace, name)
        self._name = name
        self._namespace = namespace
        self.identity = identity
        self._lease_seconds = lease_seconds
        self._renew_deadline = min(renew_deadline_seconds, lease_seconds)
        self._retry = retry_seconds
        self._clock = clock
        self._wall = wall_clock
        self._leading_until: float | None = None
        self._observed: tuple[str, str] | None = None  # (holder, renewTime) last seen
        self._observed_at = 0.0
        self.holder: str | None = None
        self._release_on_stop = True
        # Retried every `retry_seconds`, failing or not: a leader must renew well within its deadline.
        self.job = Periodic(THERMAL_LEASE, retry_seconds, self._attempt, on_stop=self._stopped)

    @classmethod
    def for_thermal(cls, cluster: ClusterGateway, settings: Settings) -> LeaderElector:
        """The thermal controller's elector (NUFI_THERMAL_LEASE_*), under an identity unique to this
        process; the Lease lives in NuFi's own namespace unless one is set."""
        identity = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        account = own_service_account(cluster.source, settings.project_service_account)
        return cls(
            cluster,
            namespace=settings.thermal_lease_namespace or (account.namespace if account else "default"),
            name=settings.thermal_lease_name,
            identity=identity,
            lease_seconds=settings.thermal_lease_seconds,
            renew_deadline_seconds=settings.thermal_renew_deadline_seconds,
            retry_seconds=settings.thermal_retry_seconds,
        )

    @property
    def is_leader(self) -> bool:
        return self._leading_until is not None and self._clock() < self._leading_until

    def start(self) -> None:
        self.job.start()

    async def close(self, *, release: bool = True) -> None:
        """Stop; `release` hands the Lease over at once (False: as a crash would, after it expires)."""
        self._release_on_stop = release
        await self.job.close()

    async def _stopped(self) -> None:
        if self._release_on_stop and self.is_leader:
            try:
                await self._release()
            except (KubeRefused, DependencyUnavailable) as exc:
                _log.warning("lease not released", lease=self._name, error=str(exc))
        self._lose("closed")

    async def _attempt(self) -> None:
        try:
            await self.try_acquire_or_renew()
        finally:
            if self._leading_until is not None and not self.is_leader:
                self._lose("could not renew within the renew deadline")

    async def try_acquire_or_renew(self) -> bool:
        """One attempt; True when this replica leads afterwards."""
        now_wall = self._wall()
        attempt_at = self._clock()
        current = await self._get()
        spec = self._spec(now_wall, None)
        if current is None:
            metadata = {"name": self._name, "namespace": self._namespace}
            return await self._write("POST", self._path, {"metadata": metadata, "spec": spec}, attempt_at)
        held = current.get("spec") or {}
        holder = held.get("holderIdentity") or ""
        record = (holder, str(held.get("renewTime") or ""))
        if record != self._observed:
            self._observed, self._observed_at = record, attempt_at
        self.holder = holder or None
        duration = float(held.get("leaseDurationSeconds") or self._lease_seconds)
        mine = holder == self.identity
        if holder and not mine and attempt_at < self._observed_at + duration:
            if self._leading_until is not None:
                self._lose(f"{holder} holds the lease")
            return False
        spec = self._spec(now_wall, held if mine else None)
        if not mine:
            # Every change of holder counts, from a released Lease too (as client-go counts them).
            spec["leaseTransitions"] = int(held.get("leaseTransitions") or 0) + 1
        body = {"metadata": {**(current.get("metadata") or {})}, "spec": spec}
        return await self._write("PUT", self._object, body, attempt_at)

    async def _write(self, method: str, path: str, body: Json, attempt_at: float) -> bool:
        """Create or take the Lease; False when another candidate's write won (409)."""
        try:
            await request_json(self._cluster, method, path, body=body)
        except KubeRefused as exc:
            if exc.status == 409:
                return False
            raise
        self._lead(attempt_at)
        return True

    async def _get(self) -> Json | None:
        try:
            return await request_json(self._cluster, "GET", self._object)
        except KubeRefused as exc:
            if exc.status == 404:
                return None
            raise

    def _spec(self, now_wall: float, held: dict[str, Any] | None) -> dict[str, Any]:
        stamp = micro_time(now_wall)
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": max(1, round(self._lease_seconds)),
            "acquireTime": (held or {}).get("acquireTime") or stamp,
            "renewTime": stamp,
            "leaseTransitions": int((held or {}).get("leaseTransitions") or 0),
        }

    def _lead(self, attempt_at: float) -> None:
        if self._leading_until is None:
            _log.info("leadership acquired", lease=self._name, identity=self.identity)
        self.holder = self.identity
        self._leading_until = attempt_at + self._renew_deadline

    def _lose(self, why: str) -> None:
        if self._leading_until is not None:
            _log.info("leadership lost", lease=self._name, identity=self.identity, reason=why)
        self._leading_until = None

    async def _release(self) -> None:
        current = await self._get()
        if current is None or (current.get("spec") or {}).get("holderIdentity") != self.identity:
            return
        spec = {**(current.get("spec") or {}), "holderIdentity": "", "leaseDurationSeconds": 1}
        spec["renewTime"] = micro_time(self._wall())
        await request_json(
            self._cluster, "PUT", self._object, body={"metadata": current.get("metadata"), "spec": spec}
        )
