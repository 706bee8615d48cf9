"""Server-side printing (`meta.k8s.io/v1` Table), which `kubectl get` asks for by default."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nufi_sandbox.devcluster.resources import ResourceType

Obj = dict[str, Any]


def _column(name: str, kind: str = "string", fmt: str = "", priority: int = 0) -> Obj:
    return {"name": name, "type": kind, "format": fmt, "description": name, "priority": priority}


def age(timestamp: str | None, now: datetime | None = None) -> str:
    if not timestamp:
        return "<unknown>"
    # An event's `eventTime` is a MicroTime: the same stamp with a fraction of a second.
    created = datetime.strptime(timestamp.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    return human_duration(int(((now or datetime.now(UTC)) - created).total_seconds()))


def human_duration(seconds: int) -> str:
    """`duration.HumanDuration`: two units while the smaller still tells something, then one."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 120:
        return f"{max(seconds, 0)}s"
    minutes, hours = seconds // 60, seconds // 3600
    if minutes < 10:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    days, years = hours // 24, hours // (24 * 365)
    if hours < 24 * 8:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    if hours < 24 * 365 * 8:
        return f"{years}y{days % 365}d" if days % 365 else f"{years}y"
    return f"{years}y"


def _pod_cells(obj: Obj) -> list[Any]:
    statuses = obj.get("status", {}).get("containerStatuses", []) or []
    containers = obj.get("spec", {}).get("containers", []) or []
    ready = sum(1 for s in statuses if s.get("ready"))
    phase = obj.get("status", {}).get("phase", "Unknown")
    if obj["metadata"].get("deletionTimestamp"):
        phase = "Terminating"
    restarts = sum(int(s.get("restartCount", 0)) for s in statuses)
    return [
        obj["metadata"]["name"],
        f"{ready}/{len(containers)}",
        phase,
        restarts,
        age(obj["metadata"].get("creationTimestamp")),
        obj.get("status", {}).get("podIP") or "<none>",
        obj.get("spec", {}).get("nodeName") or "<none>",
    ]


def _node_cells(obj: Obj) -> list[Any]:
    conditions = obj.get("status", {}).get("conditions", []) or []
    ready = next((c for c in conditions if c.get("type") == "Ready"), None)
    status = "Ready" if ready and ready.get("status") == "True" else "NotReady"
    if obj.get("spec", {}).get("unschedulable"):
        status += ",SchedulingDisabled"
    roles = sorted(
        key.split("/", 1)[1]
        for key in obj["metadata"].get("labels", {})
        if key.startswith("node-role.kubernetes.io/")
    )
    return [
        obj["metadata"]["name"],
        status,
        ",".join(roles) or "<none>",
        age(obj["metadata"].get("creationTimestamp")),
        obj.get("status", {}).get("nodeInfo", {}).get("kubeletVersion", ""),
    ]


def _quota_cells(obj: Obj) -> list[Any]:
    """`printResourceQuota`: `name: used/hard` per spec.hard key, `limits.*` in their own column."""
    status = obj.get("status") or {}
    used, hard = status.get("used") or {}, status.get("hard") or {}
    columns: dict[bool, list[str]] = {False: [], True: []}
    for name in sorted((obj.get("spec") or {}).get("hard") or {}):
        is_limit = name.split(".")[0] == "limits" and "." in name
        columns[is_limit].append(f"{name}: {used.get(name, '0')}/{hard.get(name, '0')}")
    return [
        obj["metadata"]["name"],
        age(obj["metadata"].get("creationTimestamp")),
        ", ".join(columns[False]),
        ", ".join(columns[True]),
    ]


def _service_external_ip(spec: Obj, status: Obj) -> str:
    """`getServiceExternalIP` as the server prints it (wide, so load balancer addresses are not clipped)."""
    kind, external = spec.get("type", ""), list(spec.get("externalIPs") or [])
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) or "<none>"
    if kind == "LoadBalancer":
        ingress = (status.get("loadBalancer") or {}).get("ingress") or []
        balancers = sorted(
            {i.get("ip") or i.get("hostname") for i in ingress if i.get("ip") or i.get("hostname")}
        )
        return ",".join([*balancers, *external]) or "<pending>"
    if kind == "ExternalName":
        return str(spec.get("externalName", ""))
    return "<unknown>"


def _service_cells(obj: Obj) -> list[Any]:
    spec = obj.get("spec") or {}
    ports = [
        f"{p.get('port')}:{p['nodePort']}/{p.get('protocol', 'TCP')}"
        if p.get("nodePort")
        else f"{p.get('port')}/{p.get('protocol', 'TCP')}"
        for p in spec.get("ports") or []
    ]
    selector = spec.get("selector") or {}
    return [
        obj["metadata"]["name"],
        spec.get("type", ""),
        (spec.get("clusterIPs") or ["<none>"])[0],
        _service_external_ip(spec, obj.get("status") or {}),
        ",".join(ports) or "<none>",
        age(obj["metadata"].get("creationTimestamp")),
        ",".join(f"{k}={selector[k]}" for k in sorted(selector)) or "<none>",
    ]


def _event_cells(obj: Obj) -> list[Any]:
    """`printEvent`, wide: the server always fills the priority columns and kubectl hides them."""
    first = age(obj.get("firstTimestamp") or obj.get("eventTime"))
    last = age(obj["lastTimestamp"]) if obj.get("lastTimestamp") else first
    count = obj.get("count") or 1
    if obj.get("series"):
        last, count = age(obj["series"].get("lastObservedTime")), obj["series"].get("count", count)
    involved = obj.get("involvedObject") or {}
    target = str(involved.get("kind", "")).lower()
    if involved.get("name"):
        target = f"{target}/{involved['name']}"
    source = obj.get("source") or {}
    component = source.get("component") or obj.get("reportingComponent") or ""
    instance = source.get("host") or obj.get("reportingInstance") or ""
    return [
        last,
        obj.get("type", ""),
        obj.get("reason", ""),
        target,
        involved.get("fieldPath", ""),
        f"{component}, {instance}" if instance else component,
        str(obj.get("message", "")).strip(),
        first,
        int(count),
        obj["metadata"]["name"],
    ]


_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)


def _volume_claim_cells(obj: Obj) -> list[Any]:
    spec, status, meta = obj.get("spec") or {}, obj.get("status") or {}, obj["metadata"]
    capacity = modes = ""
    if spec.get("volumeName"):
        held = set(status.get("accessModes") or [])
        modes = ",".join(short for mode, short in _ACCESS_MODES if mode in held)
        capacity = str((status.get("capacity") or {}).get("storage", ""))
    annotations = meta.get("annotations") or {}
    klass = annotations.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName") or "")
    return [
        meta["name"],
        "Terminating" if meta.get("deletionTimestamp") else status.get("phase", ""),
        spec.get("volumeName", ""),
        capacity,
        modes,
        klass,
        spec.get("volumeAttributesClassName") or "<unset>",
        age(meta.get("creationTimestamp")),
        spec.get("volumeMode") or "<unset>",
    ]


def _resource_claim_cells(obj: Obj) -> list[Any]:
    """`resourceClaimState`: deleted, then pending or allocated (and reserved while a pod holds it)."""
    meta, status = obj["metadata"], obj.get("status") or {}
    states = ["deleted"] if meta.get("deletionTimestamp") else []
    if not status.get("allocation"):
        states += [] if meta.get("deletionTimestamp") else ["pending"]
    else:
        states += ["allocated", "reserved"] if status.get("reservedFor") else ["allocated"]
    return [meta["name"], ",".join(states), age(meta.get("creationTimestamp"))]


def _resource_slice_cells(obj: Obj) -> list[Any]:
    spec = obj.get("spec") or {}
    return [
        obj["metadata"]["name"],
        spec.get("nodeName") or "",
        spec.get("driver", ""),
        (spec.get("pool") or {}).get("name", ""),
        age(obj["metadata"].get("creationTimestamp")),
    ]


_LAYOUTS = {
    ("", "resourcequotas"): (
        [_column("Name", fmt="name"), _column("Age"), _column("Request"), _column("Limit")],
        _quota_cells,
    ),
    ("", "pods"): (
        [
            _column("Name", fmt="name"),
            _column("Ready"),
            _column("Status"),
            _column("Restarts", "integer"),
            _column("Age"),
            _column("IP", priority=1),
            _column("Node", priority=1),
        ],
        _pod_cells,
    ),
    ("", "nodes"): (
        [
            _column("Name", fmt="name"),
            _column("Status"),
            _column("Roles"),
            _column("Age"),
            _column("Version"),
        ],
        _node_cells,
    ),
    ("", "services"): (
        [
            _column("Name", fmt="name"),
            _column("Type"),
            _column("Cluster-IP"),
            _column("External-IP"),
            _column("Port(s)"),
            _column("Age"),
            _column("Selector", priority=1),
        ],
        _service_cells,
    ),
    ("", "events"): (
        [
            _column("Last Seen"),
            _column("Type"),
            _column("Reason"),
            _column("Object"),
            _column("Subobject", priority=1),
            _column("Source", priority=1),
            _column("Message"),
            _column("First Seen", priority=1),
            _column("Count", priority=1),
            _column("Name", fmt="name", priority=1),
        ],
        _event_cells,
    ),
    ("", "persistentvolumeclaims"): (
        [
            _column("Name", fmt="name"),
            _column("Status"),
            _column("Volume"),
            _column("Capacity"),
            _column("Access Modes"),
            _column("StorageClass"),
            _column("VolumeAttributesClass"),
            _column("Age"),
            _column("VolumeMode", priority=1),
        ],
        _volume_claim_cells,
    ),
    ("resource.k8s.io", "resourceclaims"): (
        [_column("Name", fmt="name"), _column("State"), _column("Age")],
        _resource_claim_cells,
    ),
    ("resource.k8s.io", "resourceslices"): (
        [_column("Name", fmt="name"), _column("Node"), _column("Driver"), _column("Pool"), _column("Age")],
        _resource_slice_cells,
    ),
}


def _default_cells(obj: Obj) -> list[Any]:
    return [obj["metadata"]["name"], age(obj["metadata"].get("creationTimestamp"))]


def to_table(rt: ResourceType, items: list[Obj], list_meta: Obj) -> Obj:
    columns, cells = _LAYOUTS.get(rt.key, ([_column("Name", fmt="name"), _column("Age")], _default_cells))
    rows = [
        {
            "cells": cells(obj),
            "object": {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": obj["metadata"],
            },
        }
        for obj in items
    ]
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_meta,
        "columnDefinitions": columns,
        "rows": rows,
    }
