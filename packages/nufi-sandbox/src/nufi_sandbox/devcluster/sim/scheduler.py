"""default-scheduler: binds pending pods to nodes, or says in the real scheduler's words why it cannot."""

from __future__ import annotations

from collections.abc import Iterable

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.dra.allocator import AllocationError
from nufi_sandbox.devcluster.dra.scheduling import DraView, Fit, filter_node, pod_claims, uses_dra
from nufi_sandbox.devcluster.sim.conditions import find_condition, set_condition
from nufi_sandbox.devcluster.sim.controller import Controller
from nufi_sandbox.devcluster.sim.dra_binding import ClaimBinder
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import Obj, is_deleting, name_of, namespace_of, now
from nufi_sandbox.devcluster.sim.pods import creation_order, is_terminal
from nufi_sandbox.devcluster.sim.scheduling import NodeView, choose_node, fit_error_message
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

SCHEDULER_NAME = "default-scheduler"
_PASS = "schedule"
# A DRA object changing may make room (or take it) as much as a pod or a node.
_TRIGGERS = {
    ("", "pods"),
    ("", "nodes"),
    ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceslices"),
    ("resource.k8s.io", "deviceclasses"),
}


def _waiting(pod: Obj) -> bool:
    spec = pod.get("spec", {})
    return (
        not spec.get("nodeName")
        and spec.get("schedulerName", SCHEDULER_NAME) == SCHEDULER_NAME
        and not is_deleting(pod)
        and not is_terminal(pod)
        and not spec.get("schedulingGates")
    )


class Scheduler(Controller[str]):
    """Every change to pods or nodes may make room, so each one triggers a pass over all waiting pods."""

    name = "scheduler"

    def __init__(self, store: Store, events: EventRecorder, *, resync_seconds: float = 1.0) -> None:
        super().__init__(store)
        self.resync_seconds = resync_seconds
        self._events = events
        self._pods = store.rt("", "v1", "pods")
        self._binder = ClaimBinder(store)

    def keys_for(self, event: WatchEvent) -> Iterable[str]:
        if event.rt_key in _TRIGGERS:
            yield _PASS

    def all_keys(self) -> Iterable[str]:
        yield _PASS

    async def reconcile(self, key: str) -> None:
        waiting = sorted(
            (p for p in self.store.all_of("", "pods") if _waiting(p)),
            key=lambda p: (-int(p.get("spec", {}).get("priority") or 0), creation_order(p)),
        )
        if not waiting:
            return
        views = self._node_views()
        dra = self._dra_view()
        for pod in waiting:
            self._schedule(pod, views, dra)

    def _node_views(self) -> list[NodeView]:
        views = {name_of(node): NodeView(node) for node in self.store.all_of("", "nodes")}
        for pod in self.store.all_of("", "pods"):
            view = views.get(pod.get("spec", {}).get("nodeName") or "")
            if view is not None and not is_terminal(pod):
                view.add_pod(pod)
        return sorted(views.values(), key=lambda v: v.name)

    def _dra_view(self) -> DraView:
        return DraView.of(
            list(self.store.all_of("resource.k8s.io", "deviceclasses")),
            list(self.store.all_of("resource.k8s.io", "resourceslices")),
            list(self.store.all_of("resource.k8s.io", "resourceclaims")),
        )

    def _schedule(self, pod: Obj, views: list[NodeView], dra: DraView) -> None:
        namespace, name = namespace_of(pod), name_of(pod)
        fits: dict[str, Fit] = {}
        claims = pod_claims(dra, pod) if uses_dra(dra, pod) else None
        if uses_dra(dra, pod) and claims is None:
            return  # PreEnqueue: not tried until its claims exist

        def dynamic_resources(view: NodeView) -> list[str]:
            assert claims is not None
            reasons, fit = filter_node(dra, pod, claims, view.node, view.allocatable)
            if fit is not None:
                fits[view.name] = fit
            return reasons

        try:
            chosen, rejected = choose_node(
                pod,
                views,
                dra_devices=lambda view: dra.devices_on(view.node),
                last_filter=dynamic_resources if claims is not None else None,
            )
        except AllocationError as exc:
            self._unschedulable(
                pod, f'running "DynamicResources" filter plugin: {exc}', reason="SchedulerError"
            )
            return
        if chosen is None:
            self._unschedulable(pod, fit_error_message(len(views), rejected))
            return
        try:
            if claims is not None:
                self._binder.reserve(pod, claims, fits[chosen.name], dra)
            self.store.bind(namespace, name, chosen.name)
        except errors.ApiError:
            return  # deleted or bound by someone else meanwhile; the next pass sees the truth
        chosen.add_pod(pod)
        stamp = now()

        def scheduled(current: Obj) -> None:
            conditions = current.setdefault("status", {}).setdefault("conditions", [])
            set_condition(conditions, "PodScheduled", "True", now=stamp, probe_time=True)

        self.store.mutate(self._pods, namespace, name, scheduled, subresource="status")
        self._events.record(
            pod,
            "Normal",
            "Scheduled",
            f"Successfully assigned {namespace}/{name} to {chosen.name}",
            component=SCHEDULER_NAME,
        )

    def _unschedulable(self, pod: Obj, message: str, *, reason: str = "Unschedulable") -> None:
        current = find_condition(pod.get("status", {}).get("conditions"), "PodScheduled")
        if current is not None and current.get("message") == message and current.get("status") == "False":
            return
        stamp = now()

        def pending(obj: Obj) -> None:
            conditions = obj.setdefault("status", {}).setdefault("conditions", [])
            set_condition(
                conditions,
                "PodScheduled",
                "False",
                now=stamp,
                reason=reason,
                message=message,
                probe_time=True,
            )

        self.store.mutate(self._pods, namespace_of(pod), name_of(pod), pending, subresource="status")
        self._events.record(pod, "Warning", "FailedScheduling", message, component=SCHEDULER_NAME)
