"""The serving pods thermal control steers: every NuFi deployment's pods, their node, readiness and
whether their traffic is on, with the deployment's policy override."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from nufi.cluster import ClusterGateway
from nufi.cluster.deployments import list_deployments, list_pods
from nufi.thermal.policy import PolicyOverride
from nufi.workloads.labels import (
    DEVICE_TYPE,
    MANAGED_BY,
    MANAGED_BY_NUFI,
    THERMAL_KEPT_REASON,
    THERMAL_OFF_SINCE,
    TRAFFIC,
    TRAFFIC_OFF,
    WORKLOAD,
    WORKLOAD_KIND,
    selector_text,
)

OVERRIDE_ANNOTATION = "nufi.io/thermal-override"
_SERVING = selector_text({MANAGED_BY: MANAGED_BY_NUFI, WORKLOAD_KIND: "deployment"})


@dataclass(frozen=True)
class ServingPod:
    namespace: str
    name: str
    uid: str | None
    node: str | None
    ready: bool
    traffic_on: bool
    # When its traffic was turned off (Unix seconds), from its annotation.
    off_since: float | None = None
    kept_reason: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)


@dataclass(frozen=True)
class ServingDeployment:
    namespace: str
    name: str
    device_type: str
    pods: tuple[ServingPod, ...]
    override: PolicyOverride | None = None
    # Why the override annotation could not be used (it is then ignored).
    override_problem: str | None = None


async def read_serving(cluster: ClusterGateway) -> tuple[ServingDeployment, ...]:
    deployments = await list_deployments(cluster, None, label_selector=_SERVING)
    pods: dict[tuple[str, str], list[ServingPod]] = {}
    for item in await list_pods(cluster, None, label_selector=_SERVING):
        meta = item.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            continue  # terminating: already out of its Service's endpoints
        workload = (meta.get("labels") or {}).get(WORKLOAD)
        if workload:
            pods.setdefault((meta.get("namespace", ""), workload), []).append(_pod(item))
    found = []
    for item in deployments:
        meta = item.get("metadata") or {}
        namespace, name = meta.get("namespace", ""), meta.get("name", "")
        device_type = (meta.get("labels") or {}).get(DEVICE_TYPE)
        if not device_type:
            continue
        override, problem = _override((meta.get("annotations") or {}).get(OVERRIDE_ANNOTATION))
        found.append(
            ServingDeployment(
                namespace=namespace,
                name=name,
                device_type=device_type,
                pods=tuple(sorted(pods.get((namespace, name), []), key=lambda p: p.name)),
                override=override,
                override_problem=problem,
            )
        )
    return tuple(found)


def _pod(item: Mapping[str, Any]) -> ServingPod:
    meta = item.get("metadata") or {}
    labels = meta.get("labels") or {}
    annotations = meta.get("annotations") or {}
    status = item.get("status") or {}
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or []
    )
    return ServingPod(
        namespace=meta.get("namespace", ""),
        name=meta.get("name", ""),
        uid=meta.get("uid"),
        node=(item.get("spec") or {}).get("nodeName"),
        ready=ready,
        traffic_on=labels.get(TRAFFIC) != TRAFFIC_OFF,
        off_since=_instant(annotations.get(THERMAL_OFF_SINCE)),
        kept_reason=annotations.get(THERMAL_KEPT_REASON),
    )


def _override(text: str | None) -> tuple[PolicyOverride | None, str | None]:
    if not text:
        return None, None
    try:
        return PolicyOverride.model_validate(json.loads(text)), None
    except (ValueError, ValidationError) as exc:
        # Why, in the parser's own words: the controller quotes them in `thermal.override_unusable`.
        return None, str(exc)


def _instant(text: str | None) -> float | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
