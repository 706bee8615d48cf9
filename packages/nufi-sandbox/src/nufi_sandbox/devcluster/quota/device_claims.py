"""What a ResourceClaim charges against a quota, after `pkg/quota/v1/evaluator/core/resource_claims.go`.

A claim charges `count/resourceclaims.resource.k8s.io` and, for every request, the devices it may be
given under three names: `<class>.deviceclass.resource.k8s.io/devices`, the class's implicit extended
resource `requests.deviceclass.resource.kubernetes.io/<class>`, and `requests.<extendedResourceName>`
when the class declares one. `ExactCount` charges its count, `All` the most a claim can ever hold, a
`firstAvailable` request its largest alternative per class: quota is taken at creation, before anything
is allocated, so it must assume the worst.

The special claim the scheduler makes for a pod's extended resources (KEP-5004) is not charged twice:
the pod was already charged `requests.<name>` for the name it asked by, so each of the pod's own requests
cancels the claim's charge under that one name for one claim request of the same size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

from nufi_sandbox.devcluster.quota.amounts import ONE, Amount, ResourceList, parse_list
from nufi_sandbox.devcluster.quota.pod_requests import pod_totals
from nufi_sandbox.devcluster.validation.pod_spec import (
    DEVICE_CLASS_RESOURCE_PREFIX,
    is_dra_extended_resource,
    is_native_resource,
)

Obj = dict[str, Any]

DEVICE_CLAIMS = ("resource.k8s.io", "resourceclaims")
CLAIM_COUNT = "count/resourceclaims.resource.k8s.io"
DEVICES_SUFFIX = ".deviceclass.resource.k8s.io/devices"
IMPLICIT_PREFIX = "requests." + DEVICE_CLASS_RESOURCE_PREFIX
SPECIAL_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
# `AllocationResultsMaxSize`: the most devices one claim can be given, so what `All` may cost.
ALL_DEVICES_WORST_CASE = 32


class ClaimLookup(Protocol):
    """The two things a claim's charge depends on besides the claim itself."""

    def extended_resource_name(self, device_class: str) -> str | None: ...

    def pod(self, namespace: str, name: str) -> Obj | None: ...


class NoObjects:
    """A cluster with no pods and no classes: every claim is an ordinary one, every class unnamed."""

    def extended_resource_name(self, device_class: str) -> str | None:
        return None

    def pod(self, namespace: str, name: str) -> Obj | None:
        return None


NO_OBJECTS = NoObjects()


def is_extended_quota_name(name: str) -> bool:
    """`isExtendedResourceNameForQuota`: `requests.` of an extended or implicit device class name."""
    return name.startswith("requests.") and (not is_native_resource(name) or name.startswith(IMPLICIT_PREFIX))


def request_count(request: Mapping[str, Any]) -> int:
    """Devices one exact request or alternative may be given; an unknown mode counts nothing."""
    mode = request.get("allocationMode") or "ExactCount"
    if mode == "ExactCount":
        return int(request.get("count") or 1)
    return ALL_DEVICES_WORST_CASE if mode == "All" else 0


# A pod's own charge for one extended resource: the quota name and the amount.
PodCharge = tuple[str, Decimal]


def pod_charges(pod: Obj) -> list[PodCharge]:
    """`verifyOwner`'s list: each running container's request, then what init containers add on top."""
    spec = pod.get("spec") or {}
    inits = list(spec.get("initContainers") or [])
    charges: list[PodCharge] = []
    sums: dict[str, Decimal] = {}
    for index, container in enumerate([*inits, *(spec.get("containers") or [])]):
        requests = parse_list((container.get("resources") or {}).get("requests"))
        for name, amount in requests.items():
            if not is_dra_extended_resource(name):
                continue
            if index < len(inits) and container.get("restartPolicy") != "Always":
                sums[name] = Decimal(0)
                continue
            charges.append((f"requests.{name}", amount.value))
            sums[name] = sums.get(name, Decimal(0)) + amount.value
    totals = pod_totals(spec, "requests")
    for name, summed in sums.items():
        if name in totals and totals[name].value > summed:
            charges.append((f"requests.{name}", totals[name].value - summed))
    return charges


def _take(charges: list[PodCharge], name: str, count: int) -> bool:
    """Remove the first of the pod's charges of `count` under `name`; whether there was one."""
    for index, (charged, amount) in enumerate(charges):
        if charged == name and amount == count:
            del charges[index]
            return True
    return False


def _controller(meta: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return next((ref for ref in meta.get("ownerReferences") or [] if ref.get("controller")), None)


def _add(usage: ResourceList, name: str, count: int) -> None:
    amount = Amount(Decimal(count))
    usage[name] = usage[name].plus(amount) if name in usage else amount


@dataclass(frozen=True)
class DeviceClaimEvaluator:
    lookup: ClaimLookup = NO_OBJECTS
    group_resource: tuple[str, str] = DEVICE_CLAIMS

    def matching(self, names: Iterable[str]) -> list[str]:
        return [
            n
            for n in names
            if n == CLAIM_COUNT
            or n.endswith(DEVICES_SUFFIX)
            or n.startswith(IMPLICIT_PREFIX)
            or is_extended_quota_name(n)
        ]

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        charges = self.special_claim_charges(obj)
        usage: ResourceList = {CLAIM_COUNT: ONE}
        for request in ((obj.get("spec") or {}).get("devices") or {}).get("requests") or []:
            alternatives = request.get("firstAvailable")
            if alternatives:
                worst: dict[str, int] = {}
                for alternative in alternatives:
                    klass = str(alternative.get("deviceClassName", ""))
                    worst[klass] = max(worst.get(klass, 0), request_count(alternative))
                for klass, count in worst.items():
                    self._charge(usage, klass, count, charges)
            elif isinstance(request.get("exactly"), Mapping):
                exactly = request["exactly"]
                self._charge(usage, str(exactly.get("deviceClassName", "")), request_count(exactly), charges)
        return usage

    def special_claim_charges(self, claim: Obj) -> list[PodCharge] | None:
        """The owning pod's own charges when this is its special claim; None for any other claim."""
        meta = claim.get("metadata") or {}
        if (meta.get("annotations") or {}).get(SPECIAL_CLAIM_ANNOTATION) != "true":
            return None
        ref = _controller(meta)
        if ref is None or ref.get("kind") != "Pod" or ref.get("apiVersion") != "v1":
            return None
        pod = self.lookup.pod(str(meta.get("namespace", "")), str(ref.get("name", "")))
        if pod is None or (pod.get("metadata") or {}).get("uid") != ref.get("uid"):
            return None
        status = (pod.get("status") or {}).get("extendedResourceClaimStatus")
        if status and status.get("resourceClaimName") != meta.get("name"):
            return None
        return pod_charges(pod)

    def _charge(self, usage: ResourceList, klass: str, count: int, charges: list[PodCharge] | None) -> None:
        """`setResourceQuantity`: the devices always, each request name unless the pod paid for it."""
        _add(usage, klass + DEVICES_SUFFIX, count)
        implicit = IMPLICIT_PREFIX + klass
        declared = self.lookup.extended_resource_name(klass)
        explicit = f"requests.{declared}" if declared else None
        paid_implicit = charges is not None and _take(charges, implicit, count)
        paid_explicit = False
        if charges is not None and not paid_implicit and explicit is not None:
            paid_explicit = _take(charges, explicit, count)
        if not paid_implicit:
            _add(usage, implicit, count)
        if explicit is not None and not paid_explicit:
            _add(usage, explicit, count)

    def constraints(self, required: Iterable[str], obj: Obj) -> str:
        return ""

    def handles_update(self) -> bool:
        return True
