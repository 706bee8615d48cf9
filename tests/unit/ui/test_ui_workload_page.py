"""Deployments and labs are two kinds on the one workload page: the table, its refresh, the project it
lists, the delete's confirmation and the create form's frame are built in `parts/workload_page.py`
alone, so a third kind (or a change to how a workload list looks) is written once."""

from __future__ import annotations

import ast
from pathlib import Path

import nufi.ui
from nufi.ui.pages import deployments, labs
from nufi.ui.parts.workload_page import WorkloadKind

UI = Path(nufi.ui.__file__).parent
# What draws or drives a workload list; each is called in the one part, nowhere else.
PAGE_BUILDERS = ("workload_table", "fill_table", "shown_project", "confirm_delete")
# What a kind's page module may not draw itself: the page part draws it for every kind.
DRAWN_BY_THE_PART = ("table", "timer", "grid")


def calls(path: Path) -> set[str]:
    """The names of what `path` calls: `f(...)` as "f", `ui.table(...)` as "ui.table"."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                found.add(node.func.id)
            elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                found.add(f"{node.func.value.id}.{node.func.attr}")
    return found


def test_only_the_workload_page_part_builds_a_workload_list() -> None:
    callers = {
        str(path.relative_to(UI)): sorted(set(PAGE_BUILDERS) & calls(path))
        for path in sorted(UI.rglob("*.py"))
        if set(PAGE_BUILDERS) & calls(path)
    }
    assert callers == {"parts/workload_page.py": sorted(PAGE_BUILDERS)}


def test_the_deployments_and_labs_modules_describe_their_kind_and_draw_no_list() -> None:
    for module in (deployments, labs):
        drawn = {f"ui.{name}" for name in DRAWN_BY_THE_PART} & calls(Path(str(module.__file__)))
        assert drawn == set(), module.__name__
        assert "WorkloadPage" in calls(Path(str(module.__file__))), module.__name__
    assert isinstance(deployments.Deployments(), WorkloadKind)
    assert isinstance(labs.Labs(), WorkloadKind)
