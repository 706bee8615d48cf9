"""Modules stay at most 400 lines and functions at most 60, across the product, the sandbox, the
benchmarks and the tests; the few exceptions are named here, each with why, and an exception that no
longer needs its place fails too, so the list cannot outlive its reason."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
ROOTS = ("src", "packages", "bench", "tests")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

# Modules allowed past 400 lines: path -> why.
LONG_MODULES: dict[str, str] = {}

# Functions allowed past 60 lines: "path:qualified.name" -> why.
LONG_FUNCTIONS: dict[str, str] = {}


@dataclass(frozen=True)
class Size:
    where: str
    lines: int


def _sources() -> list[Path]:
    found: list[Path] = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            # Generated gRPC stubs are written by protoc, not by hand.
            if "_pb2" in path.name or ".venv" in path.parts or "node_modules" in path.parts:
                continue
            found.append(path)
    return found


def _functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, ast.AST]]:
    named: list[tuple[str, ast.AST]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef):
            named.extend(_functions(node, f"{prefix}{node.name}."))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            named.append((f"{prefix}{node.name}", node))
            named.extend(_functions(node, f"{prefix}{node.name}."))
        else:
            named.extend(_functions(node, prefix))
    return named


def _measure() -> tuple[list[Size], list[Size]]:
    modules: list[Size] = []
    functions: list[Size] = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        relative = path.relative_to(REPO).as_posix()
        modules.append(Size(relative, len(text.splitlines())))
        for name, node in _functions(ast.parse(text)):
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            end = node.end_lineno or node.lineno
            functions.append(Size(f"{relative}:{name}", end - node.lineno + 1))
    return modules, functions


MODULES, FUNCTIONS = _measure()


def test_the_sources_are_found() -> None:
    # A wrong REPO would find nothing and pass every limit.
    assert any(size.where == "src/nufi/services.py" for size in MODULES)
    assert len(FUNCTIONS) > 1000


def test_no_module_passes_400_lines_unless_named() -> None:
    over = {size.where: size.lines for size in MODULES if size.lines > MAX_MODULE_LINES}
    unexplained = {where: lines for where, lines in over.items() if where not in LONG_MODULES}
    assert not unexplained, f"split these modules (≤ {MAX_MODULE_LINES} lines): {unexplained}"


def test_no_function_passes_60_lines_unless_named() -> None:
    over = {size.where: size.lines for size in FUNCTIONS if size.lines > MAX_FUNCTION_LINES}
    unexplained = {where: lines for where, lines in over.items() if where not in LONG_FUNCTIONS}
    assert not unexplained, f"split these functions (≤ {MAX_FUNCTION_LINES} lines): {unexplained}"


def test_every_named_exception_is_still_needed() -> None:
    modules = {size.where: size.lines for size in MODULES}
    functions = {size.where: size.lines for size in FUNCTIONS}
    stale = [where for where in LONG_MODULES if modules.get(where, 0) <= MAX_MODULE_LINES]
    stale += [where for where in LONG_FUNCTIONS if functions.get(where, 0) <= MAX_FUNCTION_LINES]
    assert not stale, f"these fit the limits now (or are gone): drop them from the exceptions: {stale}"
