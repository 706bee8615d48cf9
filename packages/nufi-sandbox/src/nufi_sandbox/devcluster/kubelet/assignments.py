"""Which devices each pod's containers hold (the kubelet's ``podDevices``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import ContainerAllocation


@dataclass(frozen=True)
class PodAssignment:
    """All device allocations of one pod, containers in allocation order."""

    namespace: str
    name: str
    uid: str
    containers: dict[str, list[ContainerAllocation]] = field(default_factory=dict)


class PodDevices:
    """Allocations keyed by (pod uid, container, resource), kept in the order they were made."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str, str], ContainerAllocation] = {}

    def add(self, allocation: ContainerAllocation) -> None:
        self._entries[(allocation.pod_uid, allocation.container, allocation.resource)] = allocation

    def get(self, pod_uid: str, container: str, resource: str) -> ContainerAllocation | None:
        return self._entries.get((pod_uid, container, resource))

    def release(self, pod_uid: str) -> list[ContainerAllocation]:
        """Forget the pod; returns what it held."""
        keys = [key for key in self._entries if key[0] == pod_uid]
        return [self._entries.pop(key) for key in keys]

    def devices_in_use(self, resource: str) -> set[str]:
        return {
            device_id
            for allocation in self._entries.values()
            if allocation.resource == resource
            for device_id in allocation.device_ids
        }

    def allocations(self) -> list[ContainerAllocation]:
        return list(self._entries.values())

    def pods(self) -> list[PodAssignment]:
        by_uid: dict[str, PodAssignment] = {}
        for allocation in self._entries.values():
            pod = by_uid.get(allocation.pod_uid)
            if pod is None:
                pod = PodAssignment(allocation.pod_namespace, allocation.pod_name, allocation.pod_uid)
                by_uid[allocation.pod_uid] = pod
            pod.containers.setdefault(allocation.container, []).append(allocation)
        return list(by_uid.values())
