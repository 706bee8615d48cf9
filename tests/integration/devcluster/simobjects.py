"""Object bodies and checks shared by the simulation tests."""

from __future__ import annotations

from typing import Any

from .simcluster import SimCluster

Obj = dict[str, Any]
LPU = "hyperaccel.ai/lpu"
GPU = "nvidia.com/gpu"


def pod(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    limits: dict[str, str] | None = None,
    gates: tuple[str, ...] = (),
    **spec: Any,
) -> Obj:
    main: Obj = {"name": "app", "image": "nginx:1.27", "ports": [{"name": "http", "containerPort": 8080}]}
    if limits:
        main["resources"] = {"limits": limits}
    body: Obj = {
        "metadata": {"name": name, "labels": labels or {"app": name}},
        "spec": {"containers": [main], **spec},
    }
    if gates:
        body["spec"]["readinessGates"] = [{"conditionType": g} for g in gates]
    return body


def workload(name: str, replicas: int | None = 3, **template_spec: Any) -> Obj:
    spec: Obj = {
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **template_spec},
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {"metadata": {"name": name}, "spec": spec}


def condition(obj: Obj, kind: str) -> Obj | None:
    return next((c for c in obj.get("status", {}).get("conditions") or [] if c["type"] == kind), None)


def live(pods: list[Obj]) -> list[Obj]:
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def running_ready(p: Obj) -> bool:
    ready = condition(p, "Ready")
    return p["status"].get("phase") == "Running" and ready is not None and ready["status"] == "True"


def bound(cluster: SimCluster, name: str) -> str:
    """The node pod `name` is bound to; an AssertionError while it has none."""
    p = cluster.get("Pod", name)
    assert p["spec"].get("nodeName")
    return str(p["spec"]["nodeName"])
