"""The one list of background jobs holds every loop: each listed job is built from a setting that
exists and run somewhere, and no task is started in `src/nufi` outside the runner but where named
here, each with why (a new hand-rolled loop fails this test until it is a listed job)."""

from __future__ import annotations

import ast
from pathlib import Path

from nufi.background import jobs
from nufi.background.jobs import JOBS
from nufi.config import Settings

SRC = Path(__file__).resolve().parents[3] / "src" / "nufi"
STARTERS = {"create_task", "ensure_future", "TaskGroup"}

# "path:function" -> why a task may be started there, outside the runner.
ALLOWED: dict[str, str] = {
    "background/periodic.py:Periodic.start": "the runner itself",
    "events.py:Events._follow": "a change event's follow-up, run after the change is answered, logged",
    "monitoring/snapshots/refresher.py:Refresher._touch": "the on-demand job monitoring-refresh, per type",
    "monitoring/snapshots/refresher.py:Refresher._flight": "one evaluation shared by the readers waiting",
    "monitoring/service.py:MonitoringService._forget": "closing a replaced refresher, tracked until done",
    "monitoring/snapshots/lookups.py:RecentLookups.current": "a read's catalog recheck, shared by later ones",
    "monitoring/flight.py:SingleFlight.run": "one call shared by concurrent callers, awaited by them",
    "monitoring/snapshots/evaluation.py:evaluate": "request-scoped: an evaluation's two reads, awaited by it",
    "workloads/deployments/view.py:DeploymentViews._held_devices": "request-scoped: a shared read, awaited",
    "cluster/state.py:list_cluster_state": "request-scoped: nodes and pods listed together, awaited",
    "api/labproxy/forward.py:_pump": "request-scoped: one lab socket's two directions, ended with it",
}


def _task_starts() -> set[str]:
    found: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for where, node in _calls(tree):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in STARTERS:
                found.add(f"{path.relative_to(SRC).as_posix()}:{where}")
    return found


def _calls(tree: ast.AST, prefix: str = "") -> list[tuple[str, ast.Call]]:
    calls: list[tuple[str, ast.Call]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            calls += _calls(node, f"{prefix}{node.name}.")
        else:
            if isinstance(node, ast.Call):
                calls.append((prefix.rstrip("."), node))
            calls += _calls(node, prefix)
    return calls


def test_no_task_is_started_outside_the_runner_but_where_named() -> None:
    started = _task_starts()
    assert started - set(ALLOWED) == set(), "start it as a listed job (nufi.background) or name it here"
    assert set(ALLOWED) - started == set(), "a named place no longer starts a task: remove it"


def test_every_listed_job_has_a_unique_name_and_an_interval_setting_that_exists() -> None:
    names = [job.name for job in JOBS]
    assert len(names) == len(set(names))
    fields = {f"NUFI_{name.upper()}" for name in Settings.model_fields}
    assert {job.interval_setting for job in JOBS} <= fields


def test_every_listed_job_is_run_somewhere() -> None:
    """A job the list names but nothing runs would be reported forever as not running here."""
    constants = {
        name: value for name, value in vars(jobs).items() if name.isupper() and isinstance(value, str)
    }
    named: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        if path.parent.name == "background":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id in constants:
                named.add(constants[node.id])
    assert named == {job.name for job in JOBS}
