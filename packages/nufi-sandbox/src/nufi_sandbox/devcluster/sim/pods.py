"""What controllers need to know about a pod: its lifecycle state and what it asks of a node."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from nufi_sandbox.devcluster.sim.conditions import condition_true
from nufi_sandbox.devcluster.sim.meta import is_deleting, parse_time, seconds_since
from nufi_sandbox.devcluster.validation.quantity import parse_quantity

Obj = dict[str, Any]

TERMINAL_PHASES = ("Succeeded", "Failed")

# What the scheduler assumes a container without requests uses when it ranks nodes.
_DEFAULT_NONZERO = {"cpu": Decimal("0.1"), "memory": Decimal(200 * 1024 * 1024)}


def quantity(value: object) -> Decimal:
    try:
        return parse_quantity(str(value))
    except (ValueError, InvalidOperation):
        return Decimal(0)


def is_terminal(pod: Obj) -> bool:
    return pod.get("status", {}).get("phase") in TERMINAL_PHASES


def is_active(pod: Obj) -> bool:
    """Counts toward a controller's replicas: neither finished nor on its way out."""
    return not is_terminal(pod) and not is_deleting(pod)


def is_ready(pod: Obj) -> bool:
    return condition_true(pod.get("status", {}).get("conditions"), "Ready")


def is_running_and_ready(pod: Obj) -> bool:
    return pod.get("status", {}).get("phase") == "Running" and is_ready(pod)


def is_available(pod: Obj, min_ready_seconds: int) -> bool:
    if not is_ready(pod):
        return False
    if min_ready_seconds <= 0:
        return True
    for condition in pod.get("status", {}).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("lastTransitionTime"):
            return seconds_since(str(condition["lastTransitionTime"])) >= min_ready_seconds
    return False


def creation_order(pod: Obj) -> tuple[float, str]:
    stamp = pod["metadata"].get("creationTimestamp")
    return (parse_time(stamp).timestamp() if stamp else 0.0, pod["metadata"]["name"])


def _add(into: dict[str, Decimal], resources: Obj | None) -> None:
    for name, value in (resources or {}).items():
        into[name] = into.get(name, Decimal(0)) + quantity(value)


def pod_requests(pod: Obj, *, nonzero: bool = False) -> dict[str, Decimal]:
    """Effective requests: the sum over containers, raised to any single init container's, plus overhead.

    ``nonzero`` substitutes the scheduler's defaults for missing cpu/memory, as its scoring does."""
    spec = pod.get("spec", {})
    total: dict[str, Decimal] = {}
    for container in spec.get("containers") or []:
        requests = dict(container.get("resources", {}).get("requests") or {})
        if nonzero:
            for name, default in _DEFAULT_NONZERO.items():
                if name not in requests:
                    total[name] = total.get(name, Decimal(0)) + default
        _add(total, requests)
    for container in spec.get("initContainers") or []:
        single: dict[str, Decimal] = {}
        _add(single, container.get("resources", {}).get("requests"))
        for name, value in single.items():
            total[name] = max(total.get(name, Decimal(0)), value)
    _add(total, spec.get("overhead"))
    return total


def container_device_counts(container: Obj, resources: Iterable[str]) -> dict[str, int]:
    """How many devices of each device-plugin resource one container asks for (its limit)."""
    served = set(resources)
    wanted: dict[str, int] = {}
    limits = container.get("resources", {}).get("limits") or {}
    requests = container.get("resources", {}).get("requests") or {}
    for name in sorted(set(limits) | set(requests)):
        if name in served:
            count = int(quantity(limits.get(name, requests.get(name))))
            if count > 0:
                wanted[name] = count
    return wanted
