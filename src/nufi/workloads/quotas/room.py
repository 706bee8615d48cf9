"""Quota arithmetic (pure, no I/O): NuFi's ResourceQuota as it is written, and what room a namespace's
quotas leave.

Kubernetes' quota admission refuses a pod when, for ANY ResourceQuota of its namespace that limits a
resource the pod requests, `used + requested > hard`. NuFi's up-front check counts the same way, over
every quota of the namespace (its own `nufi-accelerators` and whatever others wrote). Extended
resources (accelerators) can only be limited in the `requests.` form (`requests.hyperaccel.ai/lpu`),
so that is the only form NuFi writes and reads for a device type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from nufi.cluster.kube_rest import Json
from nufi.cluster.quota_exceeded import Figures, quota_exceeded
from nufi.cluster.resources import format_quantity, parse_quantity
from nufi.errors import ValidationFailed
from nufi.messages import Message
from nufi.workloads.labels import MANAGED_BY, MANAGED_BY_NUFI, PROJECT

QUOTA_NAME = "nufi-accelerators"
# Which device type each `requests.<key>` entry of NuFi's quota is for (type id -> resource key, JSON):
# how a key edit or a type deletion finds the entries to follow.
DEVICE_TYPES_ANNOTATION = "nufi.io/quota-device-types"
STORAGE = "requests.storage"
PODS = "pods"


def device_resource(resource_key: str) -> str:
    """The quota's name for a device type's devices: extended resources take only the requests. form."""
    return f"requests.{resource_key}"


@dataclass(frozen=True)
class QuotaSpec:
    """What an admin asks of a project: devices per type id, storage (a quantity), pods; None: no limit."""

    devices: Mapping[str, int] = field(default_factory=dict)
    storage: str | None = None
    pods: int | None = None

    @property
    def empty(self) -> bool:
        return not self.devices and self.storage is None and self.pods is None


@dataclass(frozen=True)
class Limit:
    """One quota's figures for one resource: what it allows (`hard`) and what is counted (`used`)."""

    quota: str
    resource: str
    hard: Decimal
    used: Decimal

    @property
    def room(self) -> Decimal:
        return max(self.hard - self.used, Decimal(0))


def quota_manifest(project: str, spec: QuotaSpec, keys: Mapping[str, str]) -> Json:
    """NuFi's ResourceQuota for `spec`; `keys` gives each device type id its resource key."""
    hard: dict[str, str] = {device_resource(keys[type_id]): str(n) for type_id, n in spec.devices.items()}
    if spec.storage is not None:
        hard[STORAGE] = spec.storage
    if spec.pods is not None:
        hard[PODS] = str(spec.pods)
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {
            "name": QUOTA_NAME,
            "namespace": project,
            "labels": {MANAGED_BY: MANAGED_BY_NUFI, PROJECT: project},
            "annotations": {
                DEVICE_TYPES_ANNOTATION: json.dumps({t: keys[t] for t in sorted(spec.devices)}),
            },
        },
        "spec": {"hard": hard},
    }


def written_types(quota: Json) -> dict[str, str]:
    """The device types NuFi's quota names (type id -> resource key), from its annotation; an
    annotation edited into something else names none."""
    text = ((quota.get("metadata") or {}).get("annotations") or {}).get(DEVICE_TYPES_ANNOTATION)
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def spec_of(quota: Json) -> QuotaSpec:
    """What NuFi's quota holds, read back as the spec an admin would write."""
    hard = (quota.get("spec") or {}).get("hard") or {}
    devices = {
        type_id: int(parse_quantity(str(hard[device_resource(key)])))
        for type_id, key in written_types(quota).items()
        if device_resource(key) in hard
    }
    pods = hard.get(PODS)
    storage = hard.get(STORAGE)
    return QuotaSpec(
        devices=devices,
        storage=None if storage is None else str(storage),
        pods=None if pods is None else int(parse_quantity(str(pods))),
    )


def limits(quotas: Sequence[Json], resource: str) -> list[Limit]:
    """Every quota's figures for `resource` (`requests.hyperaccel.ai/lpu`), in the order given. A quota
    whose used figure the controller has not written yet counts as nothing used."""
    found = []
    for quota in quotas:
        hard = ((quota.get("spec") or {}).get("hard") or {}).get(resource)
        if hard is None:
            continue
        used = ((quota.get("status") or {}).get("used") or {}).get(resource, "0")
        try:
            found.append(Limit(_name(quota), resource, parse_quantity(str(hard)), parse_quantity(str(used))))
        except ValueError:
            continue  # not a quantity: the API server would not have stored it
    return found


def tightest(quotas: Sequence[Json], resource: str) -> Limit | None:
    """The quota that leaves the least room for `resource`, or None when no quota limits it."""
    found = limits(quotas, resource)
    return min(found, key=lambda limit: (limit.room, limit.hard)) if found else None


def exceeded(quotas: Sequence[Json], resource: str, more: int | Decimal) -> Limit | None:
    """The first quota that `more` of `resource` would exceed (as admission counts), or None."""
    if more <= 0:
        return None
    return next((limit for limit in limits(quotas, resource) if limit.used + more > limit.hard), None)


def _name(quota: Json) -> str:
    return str((quota.get("metadata") or {}).get("name") or "")


GIB = 1024**3


@dataclass(frozen=True)
class Replicas:
    """How a demand of devices is made of pods: `per_pod` devices each, `counted` of them in the
    quotas' used figure already (a scale counts only the pods it adds); `field` names the replica count,
    the field a refusal names when fewer replicas would fit."""

    field: str
    per_pod: int
    counted: int = 0

    def fits_one(self, room: int | Decimal) -> bool:
        """Whether one more pod fits `room`: then it is their number that is over, not the pod."""
        return room >= self.per_pod

    def fitting(self, room: int | Decimal) -> int:
        """The most replicas there may be with `room` left, those counted already included."""
        return self.counted + int(room) // self.per_pod


@dataclass(frozen=True)
class Demand:
    """What a write asks of the project's quotas: `amount` more of `resource` (the quota's name for it:
    `requests.<key>`, `requests.storage`, `pods`); refused naming `field`, the request's field that
    asks for it (None when the request as a whole does), or the replica count (`replicas`) when one
    pod fits and only their number does not. `what` names the resource for a person (a device type's
    name); None: the resource's own word."""

    resource: str
    amount: Decimal
    field: str | None
    what: object = None
    replicas: Replicas | None = None


def devices_demand(
    resource_key: str, count: int, field: str, *, name: str | None = None, replicas: Replicas | None = None
) -> Demand:
    return Demand(device_resource(resource_key), Decimal(count), field, name, replicas)


def storage_demand(gib: int, field: str) -> Demand:
    return Demand(STORAGE, Decimal(gib) * GIB, field)


def pods_demand(count: int, field: str | None, *, counted: int = 0) -> Demand:
    """`count` more pods; with `field`, each is a replica and fewer of them is the remedy."""
    replicas = None if field is None else Replicas(field, 1, counted)
    return Demand(PODS, Decimal(count), field, replicas=replicas)


def no_room(project: str, limit: Limit, demand: Demand) -> ValidationFailed:
    """The 422 `quota.exceeded` for `demand`, naming the field to change and the room `limit` leaves:
    the replica count when one pod fits the room and only their number does not (or the replica
    count is all the write asks, a scale), else the demand's own field."""

    def shown(amount: Decimal) -> int | str:
        # Counts stay numbers (devices, pods); bytes read as quantities (`4Gi`).
        text = format_quantity(amount, demand.resource)
        return int(amount) if text.isdigit() else text

    replicas = demand.replicas
    fix = None
    field = demand.field
    if replicas is not None and (replicas.fits_one(limit.room) or demand.field == replicas.field):
        field = replicas.field
        fix = Message("quota.fix.replicas", {"replicas": replicas.fitting(limit.room)})
    figures = Figures(
        limit.quota,
        demand.resource,
        shown(limit.hard),
        shown(limit.used),
        shown(demand.amount),
        shown(limit.room),
    )
    return quota_exceeded(project, figures, field=field, what=demand.what, fix=fix)
