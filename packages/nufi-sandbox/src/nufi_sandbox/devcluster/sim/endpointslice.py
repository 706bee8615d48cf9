"""endpointslice-controller: the endpoints of every Service with a selector, in slices of at most 100.

Endpoint conditions follow podToEndpoint: serving is the pod's Ready condition, terminating is a set
deletionTimestamp, ready is publishNotReadyAddresses or (serving and not terminating). Pods that are
not ready or are terminating stay listed; only terminal pods and pods without an IP are left out.
Endpoints stay in the slice that already holds them; a service without pods keeps one empty slice.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.sim.controller import Controller, ObjectKey
from nufi_sandbox.devcluster.sim.meta import (
    Obj,
    controller_ref,
    is_deleting,
    labels_of,
    name_of,
    namespace_of,
    random_suffix,
    uid_of,
)
from nufi_sandbox.devcluster.sim.pods import is_ready, is_terminal
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY = "endpointslice-controller.k8s.io"
HEADLESS_LABEL = "service.kubernetes.io/headless"
ZONE_LABEL = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100
_RESERVED = (SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL)


def _selects(service: Obj, labels: dict[str, str]) -> bool:
    selector = service.get("spec", {}).get("selector") or {}
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _manages_slices(service: Obj) -> bool:
    spec = service.get("spec", {})
    return bool(spec.get("selector")) and spec.get("type") != "ExternalName" and not is_deleting(service)


def find_port(pod: Obj, service_port: Obj) -> int | None:
    """The number a service port reaches on this pod: a numeric targetPort, or the named container port."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    protocol = service_port.get("protocol", "TCP")
    spec = pod.get("spec", {})
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    for container in [*(spec.get("containers") or []), *sidecars]:
        for port in container.get("ports") or []:
            if port.get("name") == target and port.get("protocol", "TCP") == protocol:
                return int(port["containerPort"])
    return None


def endpoint_ports(service: Obj, pod: Obj) -> list[Obj]:
    ports = []
    for service_port in service.get("spec", {}).get("ports") or []:
        number = find_port(pod, service_port)
        if number is None:
            continue
        port: Obj = {
            "name": service_port.get("name", ""),
            "port": number,
            "protocol": service_port.get("protocol", "TCP"),
        }
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def pod_endpoint(pod: Obj, service: Obj, node: Obj | None) -> Obj:
    serving = is_ready(pod)
    terminating = is_deleting(pod)
    ready = bool(service.get("spec", {}).get("publishNotReadyAddresses")) or (serving and not terminating)
    status, spec = pod.get("status", {}), pod.get("spec", {})
    addresses = [entry["ip"] for entry in status.get("podIPs") or [] if ":" not in str(entry.get("ip", ""))]
    if not addresses and status.get("podIP"):
        addresses = [status["podIP"]]
    endpoint: Obj = {
        "addresses": addresses,
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
        "targetRef": {
            "kind": "Pod",
            "namespace": namespace_of(pod),
            "name": name_of(pod),
            "uid": uid_of(pod),
        },
    }
    if spec.get("nodeName"):
        endpoint["nodeName"] = spec["nodeName"]
    zone = labels_of(node).get(ZONE_LABEL) if node is not None else None
    if zone:
        endpoint["zone"] = zone
    if spec.get("hostname") and spec.get("subdomain") == name_of(service):
        endpoint["hostname"] = spec["hostname"]
    return endpoint


def slice_labels(service: Obj) -> dict[str, str]:
    labels = {k: v for k, v in labels_of(service).items() if k not in _RESERVED}
    cluster_ip = service.get("spec", {}).get("clusterIP")
    if not cluster_ip or cluster_ip == "None":
        labels[HEADLESS_LABEL] = ""
    labels[SERVICE_NAME_LABEL] = name_of(service)
    labels[MANAGED_BY_LABEL] = MANAGED_BY
    return labels


def _ports_key(ports: list[Obj] | None) -> str:
    return json.dumps(ports or [], sort_keys=True)


def _pod_key(endpoint: Obj) -> str:
    return str(endpoint.get("targetRef", {}).get("uid", ""))


class EndpointSliceController(Controller[ObjectKey]):
    name = "endpointslice-controller"
    resync_seconds = 10.0

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._services = store.rt("", "v1", "services")
        self._slices = store.rt("discovery.k8s.io", "v1", "endpointslices")

    def keys_for(self, event: WatchEvent) -> Iterable[ObjectKey]:
        if event.rt_key == ("", "services"):
            yield (event.namespace, name_of(event.object))
        elif event.rt_key == ("", "pods"):
            pod_labels = [labels_of(event.object)] + ([labels_of(event.old)] if event.old else [])
            for service in self.store.all_of("", "services"):
                if namespace_of(service) == event.namespace and any(
                    _selects(service, lb) for lb in pod_labels
                ):
                    yield (event.namespace, name_of(service))
        elif event.rt_key == ("discovery.k8s.io", "endpointslices"):
            labels = labels_of(event.object)
            if labels.get(MANAGED_BY_LABEL) == MANAGED_BY and labels.get(SERVICE_NAME_LABEL):
                yield (event.namespace, labels[SERVICE_NAME_LABEL])

    def all_keys(self) -> Iterable[ObjectKey]:
        for service in self.store.all_of("", "services"):
            yield (namespace_of(service), name_of(service))

    def _existing(self, namespace: str, service: str) -> list[Obj]:
        found = [
            s
            for s in self.store.all_of("discovery.k8s.io", "endpointslices")
            if namespace_of(s) == namespace
            and labels_of(s).get(SERVICE_NAME_LABEL) == service
            and labels_of(s).get(MANAGED_BY_LABEL) == MANAGED_BY
        ]
        return sorted(found, key=name_of)

    async def reconcile(self, key: ObjectKey) -> None:
        namespace, name = key
        service = self.store.find(self._services, namespace, name)
        existing = self._existing(namespace, name)
        if service is None or not _manages_slices(service):
            for stale in existing:
                self._delete(stale)
            return
        plan: list[tuple[str | None, list[Obj], list[Obj]]] = []
        for ports_key, endpoints in self._desired(service).items():
            candidates = [s for s in existing if _ports_key(s.get("ports")) == ports_key]
            ports = json.loads(ports_key)
            plan += [
                (slice_name, ports, members) for slice_name, members in self._assign(candidates, endpoints)
            ]
        used = {slice_name for slice_name, _, _ in plan}
        unused = [s for s in existing if name_of(s) not in used]
        # A slice that would be deleted while another is created is rewritten instead, as the real one does.
        for i, (slice_name, ports, members) in enumerate(plan):
            if slice_name is None and unused:
                plan[i] = (name_of(unused.pop()), ports, members)
        for slice_name, ports, members in plan:
            self._write(service, slice_name, ports, members)
        for stale in unused:
            self._delete(stale)

    def _desired(self, service: Obj) -> dict[str, list[Obj]]:
        """Endpoints grouped by the ports they resolve to; a placeholder group when there are none."""
        namespace = namespace_of(service)
        nodes = {name_of(n): n for n in self.store.all_of("", "nodes")}
        groups: dict[str, list[Obj]] = {}
        pods = sorted(
            (
                p
                for p in self.store.all_of("", "pods")
                if namespace_of(p) == namespace and _selects(service, labels_of(p))
            ),
            key=name_of,
        )
        for pod in pods:
            status = pod.get("status", {})
            if is_terminal(pod) or not (status.get("podIP") or status.get("podIPs")):
                continue
            node = nodes.get(str(pod.get("spec", {}).get("nodeName") or ""))
            if node is None and not service.get("spec", {}).get("publishNotReadyAddresses"):
                continue  # the pod GC will remove it; until then it takes no traffic
            ports = endpoint_ports(service, pod)
            groups.setdefault(_ports_key(ports), []).append(pod_endpoint(pod, service, node))
        return groups or {_ports_key([]): []}

    @staticmethod
    def _assign(slices: list[Obj], endpoints: list[Obj]) -> list[tuple[str | None, list[Obj]]]:
        """Slice name (None: a new slice) -> its endpoints, keeping each endpoint where it already is."""
        wanted = {_pod_key(e): e for e in endpoints}
        plan: list[tuple[str | None, list[Obj]]] = []
        placed: set[str] = set()
        for existing in slices:
            members = [
                wanted[k]
                for k in (_pod_key(e) for e in existing.get("endpoints") or [])
                if k in wanted and k not in placed
            ]
            placed.update(_pod_key(e) for e in members)
            plan.append((name_of(existing), members))
        rest = [e for e in endpoints if _pod_key(e) not in placed]
        for _, members in plan:
            room = MAX_ENDPOINTS_PER_SLICE - len(members)
            if room > 0 and rest:
                members.extend(rest[:room])
                rest = rest[room:]
        while rest:
            plan.append((None, rest[:MAX_ENDPOINTS_PER_SLICE]))
            rest = rest[MAX_ENDPOINTS_PER_SLICE:]
        non_empty = [(n, m) for n, m in plan if m]
        if non_empty:
            return non_empty
        return plan[:1] or [(None, [])]

    def _write(self, service: Obj, slice_name: str | None, ports: list[Obj], endpoints: list[Obj]) -> None:
        namespace = namespace_of(service)
        endpoints = sorted(endpoints, key=lambda e: str(e["targetRef"]["name"]))
        # Empty lists come back from the real API server as null: its storage drops them.
        body_fields: dict[str, Any] = {
            "addressType": "IPv4",
            "endpoints": endpoints or None,
            "ports": ports or None,
        }
        labels = slice_labels(service)
        if slice_name is None:
            for _ in range(8):
                candidate = f"{name_of(service)}-{random_suffix()}"
                if self.store.find(self._slices, namespace, candidate) is None:
                    break
            body = {
                "metadata": {
                    "name": candidate,
                    "generateName": f"{name_of(service)}-",
                    "labels": labels,
                    "ownerReferences": [controller_ref(service)],
                },
                **body_fields,
            }
            self.store.create(self._slices, namespace, body)
            return

        def apply(obj: Obj) -> None:
            obj.update(body_fields)
            obj["metadata"]["labels"] = labels

        self.store.mutate(self._slices, namespace, slice_name, apply)

    def _delete(self, stale: Obj) -> None:
        with contextlib.suppress(errors.ApiError):
            self.store.delete(self._slices, namespace_of(stale), name_of(stale))
