"""Where a `services/{id}/proxy` request goes: the id parsed, then resolved like kube-proxy would.

The id is `name`, `name:port` or `scheme:name:port` (port: a Service port name or number). The
Service's EndpointSlices give the endpoints: the ready ones, or (when none is ready) those both serving
and terminating; each endpoint's pod is then served by a local process of the dev cluster's runtime.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]

SERVICE_NAME_LABEL = "kubernetes.io/service-name"

LocalPorts = Callable[[str, int], int | None]
"""(pod uid, container port) → the 127.0.0.1 port its local process listens on, or None."""


@dataclass(frozen=True)
class ServiceId:
    scheme: str
    name: str
    port: str


def parse_service_id(text: str) -> ServiceId:
    """Split `[scheme:]name[:port]` as the API server does; 400 for anything else, or for https."""
    parts = text.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, (name, port) = "", parts
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        raise errors.bad_request(f"invalid service request {text!r}")
    if not name or scheme not in ("", "http", "https"):
        raise errors.bad_request(f"invalid service request {text!r}")
    if scheme == "https":
        raise errors.bad_request(
            f"service {name!r}: https is not available here, nothing in the dev cluster serves TLS; "
            f"ask for http:{name}:{port} (or {name}:{port})"
        )
    return ServiceId(scheme or "http", name, port)


@dataclass(frozen=True)
class Backend:
    pod_namespace: str
    pod_name: str
    address: str
    port: int
    local_port: int | None


def unavailable(message: str) -> errors.ApiError:
    return errors.ApiError(503, "ServiceUnavailable", message)


class ProxyResolver:
    def __init__(self, store: Store, local_ports: LocalPorts | None) -> None:
        self._store = store
        self._local_ports = local_ports
        self._turns: dict[tuple[str, str, str], Iterator[int]] = {}

    def resolve(self, namespace: str, service_id: ServiceId) -> Backend:
        services = self._store.rt("", "v1", "services")
        service = self._store.get(services, namespace, service_id.name)
        port_name = self._port_name(service, service_id)
        candidates = self._endpoints(namespace, service_id.name, port_name)
        if not candidates:
            raise unavailable(f'no endpoints available for service "{service_id.name}"')
        turn = self._turns.setdefault((namespace, service_id.name, port_name), itertools.count())
        endpoint, port = candidates[next(turn) % len(candidates)]
        return self._backend(namespace, endpoint, port)

    @staticmethod
    def _port_name(service: Obj, service_id: ServiceId) -> str:
        ports = service.get("spec", {}).get("ports") or []
        if service_id.port.isdigit():
            number = int(service_id.port)
            for port in ports:
                if int(port.get("port", 0)) == number:
                    return str(port.get("name", ""))
            raise unavailable(f'no service port {number} found for service "{service_id.name}"')
        if service_id.port:
            return service_id.port
        return str(ports[0].get("name", "")) if len(ports) == 1 else ""

    def _endpoints(self, namespace: str, service: str, port_name: str) -> list[tuple[Obj, int]]:
        ready: list[tuple[Obj, int]] = []
        terminating: list[tuple[Obj, int]] = []
        slices = sorted(
            (
                s
                for s in self._store.all_of("discovery.k8s.io", "endpointslices")
                if s["metadata"].get("namespace") == namespace
                and (s["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL) == service
            ),
            key=lambda s: str(s["metadata"]["name"]),
        )
        for endpoint_slice in slices:
            for port in endpoint_slice.get("ports") or []:
                if str(port.get("name") or "") != port_name or port.get("port") is None:
                    continue
                for endpoint in endpoint_slice.get("endpoints") or []:
                    conditions = endpoint.get("conditions") or {}
                    # A missing condition counts as ready; serving defers to ready when missing.
                    is_ready = conditions.get("ready") is not False
                    serving = conditions.get("serving", conditions.get("ready")) is not False
                    if is_ready:
                        ready.append((endpoint, int(port["port"])))
                    elif serving and conditions.get("terminating") is True:
                        terminating.append((endpoint, int(port["port"])))
        return ready or terminating

    def _backend(self, namespace: str, endpoint: Obj, port: int) -> Backend:
        ref = endpoint.get("targetRef") or {}
        address = str((endpoint.get("addresses") or [""])[0])
        pod_namespace, pod_name = str(ref.get("namespace") or namespace), str(ref.get("name", ""))
        local_port = None
        if ref.get("kind") == "Pod" and self._local_ports is not None:
            uid = str(ref.get("uid", ""))
            pod = self._store.find(self._store.rt("", "v1", "pods"), pod_namespace, pod_name)
            if pod is not None and (not uid or pod["metadata"].get("uid") == uid):
                local_port = self._local_ports(str(pod["metadata"]["uid"]), port)
        return Backend(pod_namespace, pod_name, address, port, local_port)
