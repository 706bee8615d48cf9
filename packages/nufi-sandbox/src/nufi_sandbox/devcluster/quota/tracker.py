"""The ResourceQuota admission plugin and the resource quota controller, over the dev cluster's store.

Admission (on create, and on update for claims) charges the object against every quota of its namespace
whose `status.hard` names something it uses, in name order, and refuses with kube-apiserver's 403:
`pods "web-x" is forbidden: exceeded quota: team, requested: ..., used: ..., limited: ...`.

The controller's work (`status.hard` copied from `spec.hard`, `status.used` recounted) runs with every
write in a namespace that has quotas, in the same step: the real controller gets there within moments,
and nothing a client can observe depends on that delay except that usage is never stale here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.quota import amounts, scopes
from nufi_sandbox.devcluster.quota.amounts import ZERO, ResourceList
from nufi_sandbox.devcluster.quota.device_claims import ClaimLookup
from nufi_sandbox.devcluster.quota.evaluators import Evaluator, evaluator_for, evaluators_for, utc_now
from nufi_sandbox.devcluster.resources import ResourceType

if TYPE_CHECKING:
    from nufi_sandbox.devcluster.storage.store import Store
    from nufi_sandbox.devcluster.storage.watch_events import WatchEvent

Obj = dict[str, Any]
QUOTAS = ("", "resourcequotas")


class _StoreLookup:
    """What a device claim's charge reads besides the claim: its class's name and its owning pod."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def extended_resource_name(self, device_class: str) -> str | None:
        for found in self._store.all_of("resource.k8s.io", "deviceclasses"):
            if found["metadata"].get("name") == device_class:
                return (found.get("spec") or {}).get("extendedResourceName") or None
        return None

    def pod(self, namespace: str, name: str) -> Obj | None:
        return self._store.find(self._store.rt("", "v1", "pods"), namespace, name)


class ResourceQuotas:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._by_namespace: dict[str, set[str]] = {}
        self._syncing = False
        self._lookup: ClaimLookup = _StoreLookup(store)

    # -- admission -----------------------------------------------------------------------------------

    def admit(self, rt: ResourceType, obj: Obj, old: Obj | None = None) -> None:
        """Raise the 403 the ResourceQuota admission plugin would; `old` is set for updates."""
        namespace = (obj.get("metadata") or {}).get("namespace") or ""
        evaluator = evaluator_for(rt.key, self._lookup)
        if not rt.namespaced or evaluator is None or not self._by_namespace.get(namespace):
            return
        if old is not None and not evaluator.handles_update():
            return
        name = obj["metadata"].get("name", "")
        interesting = self._interesting(rt, name, evaluator, obj, namespace)
        delta = evaluator.usage(obj, utc_now())
        if old is not None:
            delta = amounts.subtract_non_negative(delta, evaluator.usage(old, utc_now()))
        delta = amounts.without_zeros(delta)
        for quota in interesting:
            status = quota.get("status") or {}
            hard, used = amounts.parse_list(status.get("hard")), amounts.parse_list(status.get("used"))
            requested = amounts.without_zeros(amounts.mask(delta, hard))
            if not requested:
                continue
            new_usage = amounts.mask(amounts.add(used, requested), requested)
            over = amounts.exceeded(new_usage, hard)
            if over:
                raise errors.forbidden(
                    rt,
                    name,
                    f"exceeded quota: {quota['metadata']['name']}, "
                    f"requested: {amounts.pretty(amounts.mask(requested, over))}, "
                    f"used: {amounts.pretty(amounts.mask(used, over))}, "
                    f"limited: {amounts.pretty(amounts.mask(hard, over))}",
                )

    def _interesting(self, rt: ResourceType, name: str, evaluator: Evaluator, obj: Obj, ns: str) -> list[Obj]:
        """The quotas that track something of this object, each first checked for its constraints."""
        found = []
        for quota in self._quotas(ns):
            tracked = evaluator.matching((quota.get("status") or {}).get("hard") or {})
            if not tracked or not scopes.applies(quota, obj, rt.key == ("", "pods")):
                continue
            problem = evaluator.constraints(tracked, obj)
            if problem:
                raise errors.forbidden(rt, name, f"failed quota: {quota['metadata']['name']}: {problem}")
            found.append(quota)
        return found

    # -- controller ----------------------------------------------------------------------------------

    def observe(self, event: WatchEvent) -> None:
        """After every committed write: keep the index of quotas, and their status, current."""
        if event.rt_key == QUOTAS:
            names = self._by_namespace.setdefault(event.namespace, set())
            name = event.object["metadata"]["name"]
            if event.type == "DELETED":
                names.discard(name)
            else:
                names.add(name)
        if self._syncing or event.rt_key == ("", "events") or not self._by_namespace.get(event.namespace):
            return
        self._syncing = True
        try:
            for quota in self._quotas(event.namespace):
                if event.rt_key == QUOTAS or _counts(quota, event.rt_key):
                    self._sync(quota)
        finally:
            self._syncing = False

    def _quotas(self, namespace: str) -> list[Obj]:
        rt = self._store.rt("", "v1", "resourcequotas")
        found = (
            self._store.find(rt, namespace, name) for name in sorted(self._by_namespace.get(namespace, ()))
        )
        return [quota for quota in found if quota is not None]

    def _sync(self, quota: Obj) -> None:
        hard = amounts.parse_list((quota.get("spec") or {}).get("hard"))
        used = self.usage(quota, hard)
        status = {"hard": amounts.as_text(hard), "used": amounts.as_text(used)}
        if quota.get("status") == status:
            return
        quota["status"] = status
        rt = self._store.rt("", "v1", "resourcequotas")
        meta = quota["metadata"]
        self._store.update(rt, meta["namespace"], meta["name"], quota, subresource="status")

    def usage(self, quota: Obj, names: Iterable[str]) -> ResourceList:
        """What the quota's namespace uses of each named resource some evaluator counts, among the
        objects its scopes select; zero where nothing does."""
        names, namespace = list(names), quota["metadata"]["namespace"]
        now = utc_now()
        total: ResourceList = {}
        for evaluator in evaluators_for(names, self._lookup):
            tracked = evaluator.matching(names)
            # Pods and device claims both charge `requests.<name>`: the second must not reset the first.
            for name in tracked:
                total.setdefault(name, ZERO)
            is_pod = evaluator.group_resource == ("", "pods")
            for obj in self._store.all_of(*evaluator.group_resource):
                if (obj.get("metadata") or {}).get("namespace") == namespace and scopes.applies(
                    quota, obj, is_pod
                ):
                    total = amounts.add(total, amounts.mask(evaluator.usage(obj, now), tracked))
        return total


def _counts(quota: Obj, group_resource: tuple[str, str]) -> bool:
    """Whether objects of this type count in the quota (a pod write never moves `count/secrets`)."""
    hard = (quota.get("spec") or {}).get("hard") or {}
    return any(e.group_resource == group_resource for e in evaluators_for(hard))
