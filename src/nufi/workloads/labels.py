"""The labels and annotations NuFi puts on what it creates for projects and workloads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY_NUFI = "nufi"
PROJECT = "nufi.io/project"
WORKLOAD = "nufi.io/workload"
WORKLOAD_KIND = "nufi.io/workload-kind"
DEVICE_TYPE = "nufi.io/device-type"
# Whether a serving pod receives its Service's traffic. Every pod starts "on" (its template says so),
# so a new pod is routable without NuFi; thermal control turns it "off" on a hot node and back "on".
# The Service selects on it, the Deployment does not: flipping it never takes a pod from its ReplicaSet.
TRAFFIC = "nufi.io/traffic"
TRAFFIC_ON = "on"
TRAFFIC_OFF = "off"
# Written by thermal control on a serving pod: since when and why its traffic is off, or why a hot pod
# was kept routable (the last one of its deployment). A deployment's status shows them.
THERMAL_OFF_SINCE = "nufi.io/thermal-off-since"
THERMAL_OFF_REASON = "nufi.io/thermal-off-reason"
THERMAL_KEPT_REASON = "nufi.io/thermal-kept-reason"
# The same reason as data ({"code", "params"} JSON), for a face to word in its reader's language.
THERMAL_REASON_MESSAGE = "nufi.io/thermal-reason-message"
# A project's members: a JSON list of usernames, sorted, on its namespace.
MEMBERS_ANNOTATION = "nufi.io/members"

WorkloadKind = Literal["deployment", "lab"]


def workload_labels(project: str, name: str, kind: WorkloadKind, device_type: str) -> dict[str, str]:
    """The labels every object of one workload carries (its pod template included)."""
    return {
        MANAGED_BY: MANAGED_BY_NUFI,
        PROJECT: project,
        WORKLOAD: name,
        WORKLOAD_KIND: kind,
        DEVICE_TYPE: device_type,
    }


def workload_selector(name: str, kind: WorkloadKind) -> dict[str, str]:
    """The labels that pick one workload's pods (a Deployment's and a Service's selector)."""
    return {WORKLOAD: name, WORKLOAD_KIND: kind}


def serving_selector(name: str) -> dict[str, str]:
    """A deployment's Service selector: its pods, while their traffic is on."""
    return {**workload_selector(name, "deployment"), TRAFFIC: TRAFFIC_ON}


def selector_text(labels: dict[str, str]) -> str:
    """A label selector matching every label given, for list requests."""
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))


def device_type_of(obj: Mapping[str, Any]) -> str:
    """The device type id a workload's object is labelled with; empty when it has none."""
    return str(((obj.get("metadata") or {}).get("labels") or {}).get(DEVICE_TYPE) or "")
