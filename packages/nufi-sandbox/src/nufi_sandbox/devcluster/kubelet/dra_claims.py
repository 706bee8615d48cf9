"""Which ResourceClaims a pod uses and which of their prepared devices each container gets, as the
kubelet's DRA manager reads the pod: ``spec.resourceClaims`` referenced by ``resources.claims`` (optionally
one request), and the KEP-5004 special claim through ``status.extendedResourceClaimStatus``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nufi_sandbox.devcluster.dra.pod_claims import claim_name

Obj = dict[str, Any]


class ClaimNotReady(Exception):
    """A claim of the pod does not exist, is not allocated or not reserved for it yet; the kubelet
    tries again later. The message is what its event says."""


@dataclass(frozen=True)
class PreparedDevice:
    driver: str
    pool: str
    device: str
    requests: tuple[str, ...]
    """The claim's requests this device serves; empty: all of them."""
    cdi_ids: tuple[str, ...]

    def serves(self, request: str | None) -> bool:
        """Whether a container asking for ``request`` (None: the whole claim) gets this device; a
        firstAvailable result's request ``<request>/<subrequest>`` serves ``<request>``."""
        if request is None or not self.requests:
            return True
        return any(name == request or name.startswith(f"{request}/") for name in self.requests)


@dataclass
class PreparedClaim:
    namespace: str
    name: str
    uid: str
    devices: list[PreparedDevice] = field(default_factory=list)
    pods: set[str] = field(default_factory=set)
    """Uids of this node's pods using the claim: it is unprepared once none is left."""


def special_claim(pod: Obj) -> str | None:
    """The claim the scheduler made for the pod's DRA-backed extended resources, if any."""
    status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    return str(status["resourceClaimName"]) if status.get("resourceClaimName") else None


def pod_claim_names(pod: Obj) -> list[str]:
    """Every claim the pod uses, once each; ClaimNotReady while a template's claim is not made yet."""
    names: list[str] = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        name = claim_name(pod, entry)
        if name is None:
            raise ClaimNotReady(f"waiting for the claim of {entry.get('name')!r} to be created")
        names.append(name)
    special = special_claim(pod)
    if special is not None:
        names.append(special)
    return list(dict.fromkeys(names))


def check_usable(claim: Obj | None, pod: Obj, name: str) -> Obj:
    """The claim, when allocated and reserved for the pod, as the kubelet wants it before preparing."""
    pod_name = f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}"
    if claim is None:
        raise ClaimNotReady(f"failed to fetch ResourceClaim {name}: not found")
    status = claim.get("status") or {}
    if not status.get("allocation"):
        raise ClaimNotReady(f"claim {name} is not allocated")
    if not any(ref.get("uid") == pod["metadata"]["uid"] for ref in status.get("reservedFor") or []):
        raise ClaimNotReady(f"pod {pod_name} is not allowed to use resource claim {name}")
    return claim


def allocated_drivers(claim: Obj) -> list[str]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or []
    return list(dict.fromkeys(str(result["driver"]) for result in results))


def container_devices(pod: Obj, container: Obj, prepared: dict[str, PreparedClaim]) -> list[PreparedDevice]:
    """The prepared devices ``container`` gets, claim by claim in the order it names them; ``prepared``
    is by claim name."""
    entries = {str(e.get("name")): e for e in (pod.get("spec") or {}).get("resourceClaims") or []}
    picked: list[PreparedDevice] = []
    for ref in (container.get("resources") or {}).get("claims") or []:
        entry = entries.get(str(ref.get("name")))
        name = claim_name(pod, entry) if entry is not None else None
        claim = prepared.get(name or "")
        if claim is not None:
            picked += [d for d in claim.devices if d.serves(ref.get("request") or None)]
    special = prepared.get(special_claim(pod) or "")
    if special is not None:
        status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
        mappings = status.get("requestMappings") or []
        requests = [m.get("requestName") for m in mappings if m.get("containerName") == container["name"]]
        picked += [d for d in special.devices if any(d.serves(str(r)) for r in requests)]
    return _unique(picked)


def _unique(devices: Iterable[PreparedDevice]) -> list[PreparedDevice]:
    return list(dict.fromkeys(devices))
