"""What each object charges against a quota, after `k8s.io/kubernetes/pkg/quota/v1/evaluator/core`.

A pod charges `count/pods` always and, unless it is terminal (Succeeded/Failed) or stuck past its
deletion grace period, `pods` plus its requests and limits: `cpu`/`requests.cpu`, `limits.cpu`, the same
for memory and ephemeral-storage, and `requests.<name>` for an extended resource or a device class's
implicit name (never `limits.<name>`). Init containers take part by the max rule of
`PodRequests`/`PodLimits`. A volume claim charges `persistentvolumeclaims`,
`count/persistentvolumeclaims` and `requests.storage`; a device claim is `device_claims`' to charge; any
other namespaced type charges only its object count (`count/<plural>[.<group>]`, and the legacy names).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING
from typing import Any, Protocol

from nufi_sandbox.devcluster.quota.amounts import ONE, Amount, ResourceList, parse_list
from nufi_sandbox.devcluster.quota.device_claims import (
    DEVICE_CLAIMS,
    IMPLICIT_PREFIX,
    NO_OBJECTS,
    ClaimLookup,
    DeviceClaimEvaluator,
)
from nufi_sandbox.devcluster.quota.pod_requests import pod_totals
from nufi_sandbox.devcluster.validation.pod_spec import is_dra_extended_resource, is_native_resource

Obj = dict[str, Any]

_COMPUTE = ("cpu", "memory", "ephemeral-storage")
POD_RESOURCES = frozenset(
    {"count/pods", "pods", *_COMPUTE, *(f"{scope}.{r}" for scope in ("requests", "limits") for r in _COMPUTE)}
)
# Quota tracking these makes every container state them (a historical mistake kept for compatibility).
_MUST_SPECIFY = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"
PVC_RESOURCES = frozenset({"persistentvolumeclaims", "count/persistentvolumeclaims", "requests.storage"})
# Types whose bare plural is also their object count name (besides pods and claims, counted above).
_LEGACY_COUNTS = frozenset({"services", "configmaps", "secrets", "replicationcontrollers", "resourcequotas"})
# Quota admission leaves these alone entirely.
IGNORED = frozenset({("", "events")})


class Evaluator(Protocol):
    @property
    def group_resource(self) -> tuple[str, str]: ...

    def matching(self, names: Iterable[str]) -> list[str]: ...

    def usage(self, obj: Obj, now: datetime) -> ResourceList: ...

    def constraints(self, required: Iterable[str], obj: Obj) -> str: ...

    def handles_update(self) -> bool: ...


def compute_usage(requests: Mapping[str, Amount], limits: Mapping[str, Amount]) -> ResourceList:
    """`podComputeUsageHelper`: the quota names one set of requests and limits charges."""
    out: ResourceList = {"pods": ONE}
    for res in _COMPUTE:
        if res in requests:
            out[res] = out[f"requests.{res}"] = requests[res]
        if res in limits:
            out[f"limits.{res}"] = limits[res]
    for name, amount in requests.items():
        if name.startswith("hugepages-"):
            out[name] = out[f"requests.{name}"] = amount
        elif is_dra_extended_resource(name):
            out[f"requests.{name}"] = amount
    return out


def pod_charged(pod: Obj, now: datetime) -> bool:
    """`QuotaV1Pod`: terminal pods, and pods deleting for longer than twice their grace, are free."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    meta = pod.get("metadata") or {}
    deleting, grace = meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")
    if deleting and grace is not None:
        deadline = datetime.fromisoformat(str(deleting).replace("Z", "+00:00")) + timedelta(
            seconds=int(grace)
        )
        return now <= deadline
    return True


@dataclass(frozen=True)
class PodEvaluator:
    group_resource: tuple[str, str] = ("", "pods")

    def matching(self, names: Iterable[str]) -> list[str]:
        return [
            n
            for n in names
            if n in POD_RESOURCES
            or n.startswith(("hugepages-", "requests.hugepages-"))
            or (not is_native_resource(n) and n.startswith("requests."))
            or n.startswith(IMPLICIT_PREFIX)
        ]

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        if not pod_charged(obj, now):
            return {"count/pods": ONE}
        spec = obj.get("spec") or {}
        usage = compute_usage(pod_totals(spec, "requests"), pod_totals(spec, "limits"))
        return {"count/pods": ONE, **usage}

    def constraints(self, required: Iterable[str], obj: Obj) -> str:
        """`must specify ...` naming each tracked cpu/memory resource some container leaves unset."""
        wanted = _MUST_SPECIFY.intersection(required)
        missing: dict[str, set[str]] = {}
        spec = obj.get("spec") or {}
        for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
            resources = container.get("resources") or {}
            has = compute_usage(parse_list(resources.get("requests")), parse_list(resources.get("limits")))
            for name in wanted - has.keys():
                missing.setdefault(name, set()).add(str(container.get("name", "")))
        if not missing:
            return ""
        parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
        return "must specify " + "; ".join(parts)

    def handles_update(self) -> bool:
        return False


def _storage_class(claim: Obj) -> str:
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    legacy = annotations.get("volume.beta.kubernetes.io/storage-class")
    return str(legacy if legacy is not None else (claim.get("spec") or {}).get("storageClassName") or "")


@dataclass(frozen=True)
class ClaimEvaluator:
    group_resource: tuple[str, str] = ("", "persistentvolumeclaims")

    def matching(self, names: Iterable[str]) -> list[str]:
        return [
            n
            for n in names
            if n in PVC_RESOURCES
            or (_CLASS_SUFFIX in n and n.endswith(("/requests.storage", "/persistentvolumeclaims")))
        ]

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        out: ResourceList = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
        klass = _storage_class(obj)
        if klass:
            out[f"{klass}{_CLASS_SUFFIX}persistentvolumeclaims"] = ONE
        requested = parse_list(((obj.get("spec") or {}).get("resources") or {}).get("requests")).get(
            "storage"
        )
        allocated = parse_list((obj.get("status") or {}).get("allocatedResources")).get("storage")
        storage = None
        for amount in (requested, allocated):
            if amount is not None and (storage is None or amount.value > storage.value):
                # Whole bytes, so the sum always passes the integer rule (kubernetes#94313).
                storage = Amount(amount.value.to_integral_value(rounding=ROUND_CEILING), amount.fmt)
        if storage is not None:
            out["requests.storage"] = storage
            if klass:
                out[f"{klass}{_CLASS_SUFFIX}requests.storage"] = storage
        return out

    def constraints(self, required: Iterable[str], obj: Obj) -> str:
        return ""

    def handles_update(self) -> bool:
        return True


@dataclass(frozen=True)
class CountEvaluator:
    """Object count of one type: `count/<plural>` (core) or `count/<plural>.<group>`."""

    group_resource: tuple[str, str]

    @property
    def names(self) -> frozenset[str]:
        group, plural = self.group_resource
        names = {f"count/{plural}.{group}" if group else f"count/{plural}"}
        if not group and plural in _LEGACY_COUNTS:
            names.add(plural)
        return frozenset(names)

    def matching(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if n in self.names]

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        return dict.fromkeys(self.names, ONE)

    def constraints(self, required: Iterable[str], obj: Obj) -> str:
        return ""

    def handles_update(self) -> bool:
        return False


def evaluator_for(group_resource: tuple[str, str], lookup: ClaimLookup = NO_OBJECTS) -> Evaluator | None:
    if group_resource in IGNORED:
        return None
    if group_resource == DEVICE_CLAIMS:
        return DeviceClaimEvaluator(lookup)
    if group_resource == ("", "pods"):
        return PodEvaluator()
    if group_resource == ("", "persistentvolumeclaims"):
        return ClaimEvaluator()
    return CountEvaluator(group_resource)


def evaluators_for(names: Iterable[str], lookup: ClaimLookup = NO_OBJECTS) -> list[Evaluator]:
    """Every evaluator one of `names` belongs to: what the controller must count for a quota."""
    names = list(names)
    found: list[Evaluator] = [PodEvaluator(), ClaimEvaluator(), DeviceClaimEvaluator(lookup)]
    counted: set[tuple[str, str]] = set()
    for name in names:
        if name.startswith("count/"):
            plural, _, group = name.removeprefix("count/").partition(".")
            counted.add((group, plural))
        elif name in _LEGACY_COUNTS:
            counted.add(("", name))
    counted -= {e.group_resource for e in found}
    found += [CountEvaluator(gr) for gr in sorted(counted)]
    return [e for e in found if e.matching(names)]


def utc_now() -> datetime:
    return datetime.now(UTC)
