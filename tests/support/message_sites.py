"""Where NuFi's code says something to a person, read with `ast`: every domain error it builds and
every message code it names, so a test can hold them to the catalogs of `nufi.messages`.

A site is a call that names a code: a `code="..."` keyword, or `Message("...", ...)`. A domain
error (a subclass of `NufiError`) built with no code is a site too, with code None, unless its
class words itself (its own `__init__` takes no `code` and passes one to `super().__init__`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT_ERROR = "NufiError"


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    # None: a domain error built without a code.
    code: str | None
    # The names the call gives its sentence (keywords, a literal `params={...}` or `extra={...}`);
    # None when they are not literal, so which names they hold cannot be read.
    names: frozenset[str] | None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def error_classes(trees: Mapping[str, ast.Module]) -> tuple[set[str], set[str]]:
    """The names of NufiError and its subclasses, and of those that word themselves."""
    bases: dict[str, set[str]] = {}
    self_worded: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = {_name(base) for base in node.bases}
                init = next(
                    (f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None
                )
                if init is not None and "code" not in {a.arg for a in init.args.kwonlyargs + init.args.args}:
                    self_worded.add(node.name)
    errors = {ROOT_ERROR}
    changed = True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name not in errors and parents & errors:
                errors.add(name)
                changed = True
    return errors, self_worded & errors


def sites(trees: Mapping[str, ast.Module]) -> list[Site]:
    errors, self_worded = error_classes(trees)
    found: list[Site] = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = _name(node.func)
            code = _code_of(node, callee)
            if code is not None:
                found.append(Site(path, node.lineno, code, _names(node)))
            elif callee in errors and callee not in self_worded:
                found.append(Site(path, node.lineno, None, _names(node)))
        for node in ast.walk(tree):
            # A class that words itself must name a code where it builds its error.
            if isinstance(node, ast.ClassDef) and node.name in self_worded:
                init = next(f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
                if not any(
                    isinstance(call, ast.Call) and any(k.arg == "code" for k in call.keywords)
                    for call in ast.walk(init)
                ):
                    found.append(Site(path, init.lineno, None, None))
    return found


def parse_all(root: Path, base: Path) -> dict[str, ast.Module]:
    return {
        str(path.relative_to(base)): ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(root.rglob("*.py"))
    }


def _code_of(call: ast.Call, callee: str) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
            value = keyword.value.value
            return value if isinstance(value, str) else None
    if callee == "Message" and call.args and isinstance(call.args[0], ast.Constant):
        value = call.args[0].value
        return value if isinstance(value, str) else None
    return None


def _names(call: ast.Call) -> frozenset[str] | None:
    names: set[str] = set()
    for keyword in call.keywords:
        if keyword.arg is None:
            return None  # **spread: unknown names
        if keyword.arg in ("params", "extra"):
            if not isinstance(keyword.value, ast.Dict):
                return None
            for key in keyword.value.keys:
                if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                    return None
                names.add(key.value)
        elif keyword.arg != "code":
            names.add(keyword.arg)
    if _name(call.func) == "Message" and len(call.args) > 1:
        params = call.args[1]
        if not isinstance(params, ast.Dict):
            return None
        for key in params.keys:
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                return None
            names.add(key.value)
    return frozenset(names)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def unworded(found: Iterable[Site]) -> list[Site]:
    return [site for site in found if site.code is None]
