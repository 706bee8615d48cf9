"""No module under `workloads/` reads an HTTP status or catches Kubernetes' error classes itself: what a
refusal means is decided once, in `cluster/workload_apply.py`, for every kind of workload."""

from __future__ import annotations

import ast
from pathlib import Path

WORKLOADS = Path(__file__).resolve().parents[3] / "src" / "nufi" / "workloads"
THE_ONE_APPLY = "nufi.cluster.workload_apply"
KUBE_ERRORS = frozenset({"KubeRefused", "Gone", "refusal_error", "quota_refusal", "answer_error"})


def _status_compared(node: ast.Compare) -> bool:
    """`x.status == 409`, `exc.status in (401, 403)`, `response.status_code != 404` and the like."""
    sides = [node.left, *node.comparators]
    named = any(isinstance(side, ast.Attribute) and side.attr.startswith("status") for side in sides)
    numbers = [
        const.value
        for side in sides
        for const in ast.walk(side)
        if isinstance(const, ast.Constant) and type(const.value) is int
    ]
    return named and any(100 <= number < 600 for number in numbers)


def _offences(source: str) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and _status_compared(node):
            found.append(f"line {node.lineno}: compares an HTTP status")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nufi.cluster"):
            taken = {alias.name for alias in node.names} & KUBE_ERRORS
            if node.module == "nufi.cluster.kube_errors" or (taken and node.module != THE_ONE_APPLY):
                found.append(f"line {node.lineno}: imports {node.module} {sorted(taken)}")
        if isinstance(node, ast.Import) and any(a.name == "nufi.cluster.kube_errors" for a in node.names):
            found.append(f"line {node.lineno}: imports nufi.cluster.kube_errors")
    return found


def test_no_workloads_module_reads_a_status_or_kubernetes_errors_but_through_the_one_apply() -> None:
    offences = {
        str(path.relative_to(WORKLOADS)): found
        for path in sorted(WORKLOADS.rglob("*.py"))
        if (found := _offences(path.read_text(encoding="utf-8")))
    }
    assert offences == {}


def test_the_check_sees_each_way_of_reading_a_refusal_and_lets_the_one_apply_through() -> None:
    source = """
from nufi.cluster.kube_errors import refusal_error
from nufi.cluster.kube_rest import Json, KubeRefused
from nufi.cluster.workload_apply import Refused, refused_as
if exc.status == 409: pass
if exc.status in (401, 403): pass
if said.status_code != 404: pass
if observed.status == "Pending": pass
"""
    assert _offences(source) == [
        "line 2: imports nufi.cluster.kube_errors ['refusal_error']",
        "line 3: imports nufi.cluster.kube_rest ['KubeRefused']",
        "line 5: compares an HTTP status",
        "line 6: compares an HTTP status",
        "line 7: compares an HTTP status",
    ]
