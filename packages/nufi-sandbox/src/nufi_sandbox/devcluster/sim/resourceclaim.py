"""resource-claim-controller: a claim per pod from each template entry, and claims released after pods.

As upstream's controller (`pkg/controller/resourceclaim`): for a pod's `resourceClaims` entry naming a
template it creates one claim, `generateName` `<pod>-<entry>-` (both cut to fit 57 characters), owned
by the pod (controller, blockOwnerDeletion), annotated `resource.kubernetes.io/pod-claim-name`, with the
template's labels, annotations and spec, and records it in `pod.status.resourceClaimStatuses`. For a
claim it drops from `reservedFor` every pod that is gone or finished; a claim reserved for nobody is
deallocated and loses its delete protection; a claim whose owning pod is gone or finished is deleted
(the garbage collector deletes it too when the pod goes).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.dra.pod_claims import POD_CLAIM_NAME, claim_name
from nufi_sandbox.devcluster.sim.controller import Controller
from nufi_sandbox.devcluster.sim.dra_binding import DELETE_PROTECTION
from nufi_sandbox.devcluster.sim.meta import (
    controller_of,
    controller_ref,
    is_deleting,
    name_of,
    namespace_of,
    uid_of,
)
from nufi_sandbox.devcluster.sim.pods import is_terminal
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

Obj = dict[str, Any]
Key = tuple[str, str, str]  # ("pod" | "claim", namespace, name)
_MAX_BASE = 57  # 63 less the hyphen and five random characters


def generate_name(pod: str, entry: str) -> str:
    base = f"{pod}-{entry}"
    if len(base) > _MAX_BASE:
        # Both parts lose their tails in proportion, so the entry's name still shows.
        base = f"{pod[: len(pod) * _MAX_BASE // len(base)]}-{entry[: len(entry) * _MAX_BASE // len(base)]}"
    return f"{base}-"


def _claims_named_by(pod: Obj) -> Iterable[str]:
    for entry in pod.get("spec", {}).get("resourceClaims") or []:
        name = claim_name(pod, entry)
        if name:
            yield name
    extended = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    if extended.get("resourceClaimName"):
        yield str(extended["resourceClaimName"])


class ResourceClaimController(Controller[Key]):
    name = "resource-claim-controller"
    resync_seconds = 5.0

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._pods = store.rt("", "v1", "pods")
        self._claims = store.rt("resource.k8s.io", "v1", "resourceclaims")
        self._templates = store.rt("resource.k8s.io", "v1", "resourceclaimtemplates")

    def keys_for(self, event: WatchEvent) -> Iterable[Key]:
        if event.rt_key == ("", "pods"):
            yield ("pod", event.namespace, name_of(event.object))
            for claim in _claims_named_by(event.object):
                yield ("claim", event.namespace, claim)
        elif event.rt_key == ("resource.k8s.io", "resourceclaims"):
            yield ("claim", event.namespace, name_of(event.object))
        elif event.rt_key == ("resource.k8s.io", "resourceclaimtemplates"):
            for pod in self.store.all_of("", "pods"):
                if namespace_of(pod) == event.namespace and pod.get("spec", {}).get("resourceClaims"):
                    yield ("pod", event.namespace, name_of(pod))

    def all_keys(self) -> Iterable[Key]:
        for pod in self.store.all_of("", "pods"):
            if pod.get("spec", {}).get("resourceClaims"):
                yield ("pod", namespace_of(pod), name_of(pod))
        for claim in self.store.all_of("resource.k8s.io", "resourceclaims"):
            yield ("claim", namespace_of(claim), name_of(claim))

    async def reconcile(self, key: Key) -> None:
        kind, namespace, name = key
        if kind == "pod":
            self._sync_pod(namespace, name)
        else:
            self._sync_claim(namespace, name)

    # -- pods: a claim per template entry ------------------------------------------------------------

    def _sync_pod(self, namespace: str, name: str) -> None:
        pod = self.store.find(self._pods, namespace, name)
        if pod is None or is_deleting(pod) or is_terminal(pod):
            return
        made: dict[str, str] = {}
        for entry in pod.get("spec", {}).get("resourceClaims") or []:
            template = entry.get("resourceClaimTemplateName")
            if not template or claim_name(pod, entry) is not None:
                continue
            claim = self._owned_claim(pod, str(entry.get("name", ""))) or self._create(
                pod, entry, str(template)
            )
            if claim is not None:
                made[str(entry["name"])] = name_of(claim)
        if made:
            self._record(pod, made)

    def _owned_claim(self, pod: Obj, entry: str) -> Obj | None:
        for claim in self.store.all_of("resource.k8s.io", "resourceclaims"):
            annotations = claim["metadata"].get("annotations") or {}
            owner = controller_of(claim)
            if (
                namespace_of(claim) == namespace_of(pod)
                and owner is not None
                and owner.get("uid") == uid_of(pod)
                and annotations.get(POD_CLAIM_NAME) == entry
            ):
                return claim
        return None

    def _create(self, pod: Obj, entry: Obj, template_name: str) -> Obj | None:
        template = self.store.find(self._templates, namespace_of(pod), template_name)
        if template is None:
            return None  # comes back when the template is created
        spec = template.get("spec") or {}
        meta = spec.get("metadata") or {}
        body: Obj = {
            "metadata": {
                "generateName": generate_name(name_of(pod), str(entry["name"])),
                "ownerReferences": [controller_ref({**pod, "apiVersion": "v1", "kind": "Pod"})],
                "annotations": {**(meta.get("annotations") or {}), POD_CLAIM_NAME: str(entry["name"])},
            },
            "spec": spec.get("spec") or {},
        }
        if meta.get("labels"):
            body["metadata"]["labels"] = dict(meta["labels"])
        try:
            return self.store.create(self._claims, namespace_of(pod), body)
        except errors.ApiError:
            # Refused (a quota, say): the resync tries again, as upstream's work queue does.
            return None

    def _record(self, pod: Obj, made: dict[str, str]) -> None:
        def write(obj: Obj) -> None:
            statuses = obj.setdefault("status", {}).setdefault("resourceClaimStatuses", [])
            known = {s.get("name") for s in statuses}
            statuses.extend(
                {"name": entry, "resourceClaimName": claim}
                for entry, claim in made.items()
                if entry not in known
            )

        self.store.mutate(self._pods, namespace_of(pod), name_of(pod), write, subresource="status")

    # -- claims: release after their pods -------------------------------------------------------------

    def _live_pod(self, namespace: str, name: str, uid: str) -> bool:
        pod = self.store.find(self._pods, namespace, name)
        return pod is not None and uid_of(pod) == uid and not is_terminal(pod)

    def _sync_claim(self, namespace: str, name: str) -> None:
        claim = self.store.find(self._claims, namespace, name)
        if claim is None:
            return
        status = claim.get("status") or {}
        reserved = status.get("reservedFor") or []
        kept = [
            r
            for r in reserved
            if r.get("resource") != "pods" or self._live_pod(namespace, str(r.get("name")), str(r.get("uid")))
        ]
        if len(kept) != len(reserved) or (not kept and status.get("allocation")):
            self._release(claim, kept)
        if not kept and DELETE_PROTECTION in (claim["metadata"].get("finalizers") or []):
            self._unprotect(namespace, name)
        owner = controller_of(claim)
        if (
            not kept
            and owner is not None
            and owner.get("kind") == "Pod"
            and not is_deleting(claim)
            and not self._live_pod(namespace, str(owner.get("name")), str(owner.get("uid")))
        ):
            try:
                self.store.delete(self._claims, namespace, name)
            except errors.ApiError:
                return

    def _release(self, claim: Obj, kept: list[Obj]) -> None:
        def write(obj: Obj) -> None:
            status = obj.setdefault("status", {})
            if kept:
                status["reservedFor"] = kept
                return
            status.pop("reservedFor", None)
            status.pop("allocation", None)

        self.store.mutate(self._claims, namespace_of(claim), name_of(claim), write, subresource="status")

    def _unprotect(self, namespace: str, name: str) -> None:
        def write(obj: Obj) -> None:
            kept = [f for f in obj["metadata"].get("finalizers") or [] if f != DELETE_PROTECTION]
            obj["metadata"]["finalizers"] = kept

        self.store.mutate(self._claims, namespace, name, write)
