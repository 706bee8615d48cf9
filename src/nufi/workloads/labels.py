"""The labels and annotations NuFi puts on what it creates for projects and workloads."""

from __future__ import annotations

from typing import Literal

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY_NUFI = "nufi"
PROJECT = "nufi.io/project"
WORKLOAD = "nufi.io/workload"
WORKLOAD_KIND = "nufi.io/workload-kind"
DEVICE_TYPE = "nufi.io/device-type"
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


def selector_text(labels: dict[str, str]) -> str:
    """A label selector matching every label given, for list requests."""
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))
