"""What a pod asks of DRA: the claims its `resourceClaims` name, and its extended resources a DeviceClass
backs (KEP-5004), as the scheduler and the claim controller read them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

Obj = dict[str, Any]

POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
EXTENDED_CLAIM = "resource.kubernetes.io/extended-resource-claim"
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


def claim_name(pod: Obj, entry: Mapping[str, Any]) -> str | None:
    """The claim a `spec.resourceClaims` entry stands for: named, or generated for the pod from its
    template (recorded in `status.resourceClaimStatuses`; None until the controller made it)."""
    if entry.get("resourceClaimName"):
        return str(entry["resourceClaimName"])
    for status in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
        if status.get("name") == entry.get("name"):
            generated = status.get("resourceClaimName")
            return str(generated) if generated else None
    return None


def pod_claim_names(pod: Obj) -> list[str | None]:
    return [claim_name(pod, entry) for entry in pod.get("spec", {}).get("resourceClaims") or []]


def _created(device_class: Obj) -> str:
    return str(device_class.get("metadata", {}).get("creationTimestamp") or "")


def classes_by_extended_name(classes: Iterable[Obj]) -> dict[str, Obj]:
    """Which class backs each extended resource name: the newest class naming it (ties: the first by
    name), and every class by its implicit `deviceclass.resource.kubernetes.io/<class>` name."""
    out: dict[str, Obj] = {}
    ordered = sorted(classes, key=lambda c: str(c["metadata"]["name"]))
    for device_class in ordered:
        out[IMPLICIT_PREFIX + str(device_class["metadata"]["name"])] = device_class
    explicit: dict[str, Obj] = {}
    for device_class in ordered:
        name = (device_class.get("spec") or {}).get("extendedResourceName")
        if name and (name not in explicit or _created(device_class) > _created(explicit[name])):
            explicit[name] = device_class
    out.update(explicit)
    return out


@dataclass(frozen=True)
class ExtendedRequest:
    """One container's ask for one DRA-backed extended resource, as a request of the special claim."""

    container: str
    request: str  # container-<i>-request-<j>
    resource: str
    device_class: str
    count: int


def extended_requests(
    pod: Obj, backed: Mapping[str, Obj], node_allocatable: Mapping[str, Decimal]
) -> list[ExtendedRequest]:
    """The pod's DRA-backed extended resources a node must serve with devices: those the node does not
    advertise in its allocatable (a node with the name in capacity serves it by device plugin)."""
    out = []
    for index, container in enumerate(pod.get("spec", {}).get("containers") or []):
        resources = container.get("resources") or {}
        asked = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
        names = [n for n in sorted(asked) if n in backed and node_allocatable.get(n, Decimal(0)) <= 0]
        for position, name in enumerate(names):
            count = int(Decimal(str(asked[name])))
            if count <= 0:
                continue
            request = f"container-{index}-request-{position}"
            device_class = str(backed[name]["metadata"]["name"])
            out.append(ExtendedRequest(str(container.get("name", "")), request, name, device_class, count))
    return out


def extended_claim_spec(requests: Iterable[ExtendedRequest]) -> Obj:
    return {
        "devices": {
            "requests": [
                {
                    "name": r.request,
                    "exactly": {
                        "deviceClassName": r.device_class,
                        "allocationMode": "ExactCount",
                        "count": r.count,
                    },
                }
                for r in requests
            ]
        }
    }
