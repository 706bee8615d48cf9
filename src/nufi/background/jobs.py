"""The one list of NuFi's background jobs: what each does, how often, and on which replicas it runs.

A loop is started only through `nufi.background.periodic.Periodic`, which refuses a name this list does
not hold, and a unit test refuses a task started anywhere else; so this list is every piece of work a
replica does besides answering requests. The composition root (`nufi.services`) builds the jobs that
apply to its settings and starts them together (`board.Background`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Where(StrEnum):
    """Which replicas run a job."""

    EVERY_REPLICA = "every replica"
    # Every replica runs the job, but only the holder of the thermal Lease acts on what it finds.
    LEASE_HOLDER_ACTS = "every replica; only the Lease holder acts"


class Kind(StrEnum):
    # Runs one pass, waits its interval (or a wake-up), runs again.
    PERIODIC = "periodic"
    # Holds a long-lived watch open and opens the next one when it ends; relists every interval.
    WATCH = "watch"
    # Runs per device type, only while someone reads that type; stops when nobody does.
    ON_DEMAND = "on demand"


@dataclass(frozen=True)
class Job:
    name: str
    kind: Kind
    where: Where
    # The setting that holds the job's interval (environment variable name).
    interval_setting: str
    # A job that opens database sessions besides requests cannot run on a one-connection database.
    uses_database: bool
    does: str


INTENT_RECONCILER = "intent-reconciler"
ALERT_RULES = "alert-rules"
THERMAL_CONTROL = "thermal-control"
THERMAL_LEASE = "thermal-lease"
CLUSTER_CACHE_NODES = "cluster-cache-nodes"
CLUSTER_CACHE_PODS = "cluster-cache-pods"
MONITORING_REFRESH = "monitoring-refresh"

JOBS: tuple[Job, ...] = (
    Job(
        CLUSTER_CACHE_NODES,
        Kind.WATCH,
        Where.EVERY_REPLICA,
        "NUFI_CLUSTER_CACHE_RESYNC_SECONDS",
        uses_database=False,
        does="keeps the nodes the domains read from a list and a watch (cluster/cache.py)",
    ),
    Job(
        CLUSTER_CACHE_PODS,
        Kind.WATCH,
        Where.EVERY_REPLICA,
        "NUFI_CLUSTER_CACHE_RESYNC_SECONDS",
        uses_database=False,
        does="keeps the bound pods the domains read from a list and a watch (cluster/cache.py)",
    ),
    Job(
        INTENT_RECONCILER,
        Kind.PERIODIC,
        Where.EVERY_REPLICA,
        "NUFI_INTENT_RECONCILE_INTERVAL_SECONDS",
        uses_database=True,
        does="renews this replica's lease and settles intents a crash left open (workloads/reconcile.py)",
    ),
    Job(
        THERMAL_LEASE,
        Kind.PERIODIC,
        Where.EVERY_REPLICA,
        "NUFI_THERMAL_RETRY_SECONDS",
        uses_database=False,
        does="takes or renews the thermal Lease, so one replica acts (cluster/lease.py)",
    ),
    Job(
        THERMAL_CONTROL,
        Kind.PERIODIC,
        Where.LEASE_HOLDER_ACTS,
        "NUFI_THERMAL_INTERVAL_SECONDS",
        uses_database=True,
        does=(
            "assesses temperatures and cuts or restores serving pods' traffic "
            "(thermal/protection/controller.py)"
        ),
    ),
    Job(
        ALERT_RULES,
        Kind.PERIODIC,
        Where.EVERY_REPLICA,
        "NUFI_ALERTS_SYNC_SECONDS",
        uses_database=True,
        does="keeps the written alerting rules equal to the catalog, at once after a change (alerts/sync.py)",
    ),
    Job(
        MONITORING_REFRESH,
        Kind.ON_DEMAND,
        Where.EVERY_REPLICA,
        "NUFI_MONITORING_REFRESH_SECONDS",
        uses_database=False,
        does="evaluates a read device type's metrics once per interval (monitoring/snapshots/refresher.py)",
    ),
)

_BY_NAME = {job.name: job for job in JOBS}


class UnlistedJob(LookupError):
    """A loop was asked to start under a name the list does not hold."""


def job_named(name: str) -> Job:
    """The listed job of that name; UnlistedJob for any other."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnlistedJob(f"{name!r} is not in the list of background jobs (nufi.background.jobs)") from None
