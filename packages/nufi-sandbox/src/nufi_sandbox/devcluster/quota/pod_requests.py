"""A pod's effective requests or limits, summed the way `resourcehelper.PodRequests`/`PodLimits` sum them.

Quota needs these twice: the pod evaluator charges them, and the claim evaluator compares a special
claim's requests with the pod's own, so both read one implementation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.quota.amounts import ResourceList, add, max_into, parse_list


def pod_totals(spec: Mapping[str, Any], field: str) -> ResourceList:
    """Containers summed, sidecars added, then the max with init containers; overhead on top."""
    total: ResourceList = {}
    for container in spec.get("containers") or []:
        total = add(total, parse_list((container.get("resources") or {}).get(field)))
    sidecars: ResourceList = {}
    init_max: ResourceList = {}
    for container in spec.get("initContainers") or []:
        own = parse_list((container.get("resources") or {}).get(field))
        if container.get("restartPolicy") == "Always":
            total = add(total, own)
            sidecars = add(sidecars, own)
            max_into(init_max, sidecars)
        else:
            max_into(init_max, add(own, sidecars))
    max_into(total, init_max)
    overhead = parse_list(spec.get("overhead"))
    if field == "requests":
        return add(total, overhead)
    # Overhead raises a limit only where one is set.
    return add(total, {k: v for k, v in overhead.items() if k in total})
