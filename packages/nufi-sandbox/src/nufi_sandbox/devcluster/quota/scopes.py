"""Quota scopes (`spec.scopes`, `spec.scopeSelector`): which objects a scoped quota applies to.

A quota applies to an object only when every scope selector matches it (`generic.Matches`). Only pods
answer to scopes (`podMatchesScopeFunc`); any other object never matches a scoped quota.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Obj = dict[str, Any]
Selector = Mapping[str, Any]

STANDARD_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass")
ALL_SCOPES = (*STANDARD_SCOPES, "CrossNamespacePodAffinity", "VolumeAttributesClass")


def selectors_of(quota: Obj) -> list[Selector]:
    """`getScopeSelectorsFromQuota`: each listed scope as an `Exists` selector, then the selector's."""
    spec = quota.get("spec") or {}
    found: list[Selector] = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    found += list((spec.get("scopeSelector") or {}).get("matchExpressions") or [])
    return found


def _best_effort(pod: Obj) -> bool:
    spec = pod.get("spec") or {}
    for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        resources = container.get("resources") or {}
        for part in ("requests", "limits"):
            if any(name in ("cpu", "memory") for name in resources.get(part) or {}):
                return False
    return True


def _terminating(pod: Obj) -> bool:
    deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return isinstance(deadline, int) and deadline >= 0


def _cross_namespace_affinity(pod: Obj) -> bool:
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = affinity.get(kind) or {}
        terms = list(rules.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [
            w.get("podAffinityTerm") or {}
            for w in rules.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        ]
        if any(t.get("namespaces") or t.get("namespaceSelector") is not None for t in terms):
            return True
    return False


def _priority_class(pod: Obj, selector: Selector) -> bool:
    name = (pod.get("spec") or {}).get("priorityClassName") or ""
    operator, values = selector.get("operator"), list(selector.get("values") or [])
    if operator == "Exists":
        return bool(name)
    if operator == "DoesNotExist":
        return not name
    if operator == "In":
        return bool(name) and name in values
    if operator == "NotIn":
        return not name or name not in values
    return False


def pod_matches(pod: Obj, selector: Selector) -> bool:
    """`podMatchesScopeFunc`."""
    scope = selector.get("scopeName")
    if scope == "Terminating":
        return _terminating(pod)
    if scope == "NotTerminating":
        return not _terminating(pod)
    if scope == "BestEffort":
        return _best_effort(pod)
    if scope == "NotBestEffort":
        return not _best_effort(pod)
    if scope == "PriorityClass":
        return _priority_class(pod, selector)
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(pod)
    return False


def applies(quota: Obj, obj: Obj, is_pod: bool) -> bool:
    selectors = selectors_of(quota)
    if not selectors:
        return True
    return is_pod and all(pod_matches(obj, s) for s in selectors)
