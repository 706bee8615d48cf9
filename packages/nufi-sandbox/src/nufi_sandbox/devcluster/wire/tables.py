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
    created = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    seconds = int(((now or datetime.now(UTC)) - created).total_seconds())
    # Same thresholds as kubectl's short human durations.
    if seconds < 120:
        return f"{max(seconds, 0)}s"
    if seconds < 2 * 3600:
        return f"{seconds // 60}m"
    if seconds < 2 * 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


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
