"""What a workload's pod says of itself, read alike for every kind: its conditions and a container stuck."""

from __future__ import annotations

from typing import Any

from nufi.messages import Message
from nufi.workloads.kube_reasons import container_failure

# Container waiting reasons that do not clear by themselves: the workload needs a new image or a fix.
STUCK_WAITING_REASONS = frozenset(
    {
        "CrashLoopBackOff",
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)


def conditions_of(status: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    """A pod's (or a workload object's) conditions by type."""
    return {c.get("type"): c for c in status.get("conditions") or [] if isinstance(c, dict)}


def stuck_container(status: dict[str, Any]) -> Message | None:
    """The first container waiting for a reason that will not clear by itself, in the catalog's words."""
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        reason = waiting.get("reason")
        if reason in STUCK_WAITING_REASONS:
            return container_failure(str(container.get("name") or ""), str(reason), waiting.get("message"))
    return None
