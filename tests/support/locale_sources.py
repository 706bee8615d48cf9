"""The values a key built in code (`f"thermal.column.{name}"`) can take: declared, read from the
code's own constants, or read from the loop around the place the key is built.

A declaration is one of
- `Values("hot", "stale")`: the values, written out, for a value the code gets while it runs;
- `FromCode("nufi.thermal.protection.hysteresis:ThermalState", ...)`: the values of constants in the code
  (a `Literal` type, an `Enum`, a tuple, list or set of strings, a dict's keys), imported;
- `Tuples(("labs", "kind"), ...)`: for a key with several `{}`, each key's values, written out or
  made from the code's constants;
- `IN_CODE`: each place that builds the key loops over values written there (`for name in ("a", "b")`),
  over a constant of the same function or module, or over a constant it imports (`for m in METRICS`).
"""

from __future__ import annotations

import ast
import enum
import importlib
import itertools
import types
import typing
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Site:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, init=False)
class Values:
    values: tuple[str, ...]

    def __init__(self, *values: str) -> None:
        object.__setattr__(self, "values", values)


@dataclass(frozen=True, init=False)
class FromCode:
    """Constants named `module:NAME`; the values are those of all of them together."""

    refs: tuple[str, ...]

    def __init__(self, *refs: str) -> None:
        object.__setattr__(self, "refs", refs)


@dataclass(frozen=True, init=False)
class Tuples:
    """The values of a key with several `{}`, one tuple a key (`("labs", "kind")` for `{}.column.{}`)."""

    values: tuple[tuple[str, ...], ...]

    def __init__(self, *values: tuple[str, ...]) -> None:
        object.__setattr__(self, "values", values)


@dataclass(frozen=True)
class InCode:
    pass


IN_CODE = InCode()
Source = Values | FromCode | Tuples | InCode


def source_values(source: Source) -> list[tuple[str, ...]] | None:
    """The values a declaration gives (each a 1-tuple, one per `{}`); None for `IN_CODE`."""
    if isinstance(source, Values):
        return [(value,) for value in source.values]
    if isinstance(source, Tuples):
        return list(source.values)
    if isinstance(source, FromCode):
        found: list[str] = []
        for ref in source.refs:
            module, _, name = ref.partition(":")
            for value in values_of(getattr(importlib.import_module(module), name)):
                if value not in found:
                    found.append(value)
        return [(value,) for value in found]
    return None


def values_of(constant: object) -> list[str]:
    """The strings a constant stands for; TypeError for a constant that holds anything else."""
    if typing.get_origin(constant) in (typing.Literal, typing.Union, types.UnionType):
        items: list[object] = []
        for arg in typing.get_args(constant):
            items += values_of(arg) if typing.get_origin(arg) else [arg]
    elif isinstance(constant, type) and issubclass(constant, enum.Enum):
        items = [member.value for member in constant]
    elif isinstance(constant, dict | tuple | list | set | frozenset):  # a dict: its keys
        items = list(constant)
    else:
        raise TypeError(f"not a set of values: {constant!r}")
    if not all(isinstance(item, str) for item in items):
        raise TypeError(f"not all strings: {constant!r}")
    return [str(item) for item in items]


def site_values(
    holes: list[ast.expr], node: ast.AST, parents: dict[ast.AST, ast.AST], tree: ast.Module
) -> list[tuple[str, ...]] | None:
    """The values the code around `node` gives the `holes` of a built key, one tuple per combination;
    None when the code does not list the values of every hole."""
    per_hole = []
    for hole in holes:
        values = expression_values(hole, parents, tree)
        if values is None:
            return None
        per_hole.append(values)
    return list(itertools.product(*per_hole))


_NOT_BOUND: Final = object()
# How many names, loops and calls one value may be followed through before giving up.
_DEPTH = 6


def expression_values(
    expr: ast.expr, parents: dict[ast.AST, ast.AST], tree: ast.Module, depth: int = 0
) -> list[str] | None:
    """The strings `expr` can be, when the code lists them: a literal, either side of `a if c else b`,
    a name a loop binds to listed values, a name assigned once, or a parameter of a module-private
    function that its module's calls fill with such values. None for anything else."""
    if depth > _DEPTH:
        return None
    if isinstance(expr, ast.Constant):
        return [expr.value] if isinstance(expr.value, str) else None
    if isinstance(expr, ast.IfExp):
        body = expression_values(expr.body, parents, tree, depth + 1)
        orelse = expression_values(expr.orelse, parents, tree, depth + 1)
        return None if body is None or orelse is None else _unique(body + orelse)
    if not isinstance(expr, ast.Name):
        return None
    looped = _loop_values(expr.id, expr, parents, tree)
    if looped is not _NOT_BOUND:
        return typing.cast(list[str] | None, looped)
    functions = _functions_around(expr, parents)
    for scope in [*functions, tree]:
        assigned = _assigned(expr.id, scope)
        if assigned is not None:
            return expression_values(assigned, parents, tree, depth + 1)
    if functions:
        passed = _argument_values(expr.id, functions[0], parents, tree, depth)
        if passed is not _NOT_BOUND:
            return typing.cast(list[str] | None, passed)
    return None


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _loop_values(name: str, node: ast.AST, parents: dict[ast.AST, ast.AST], tree: ast.Module) -> object:
    """The values of the loop (a comprehension or a `for`) nearest around `node` that binds `name`;
    _NOT_BOUND when no loop around it does."""
    child, here = node, parents.get(node)
    while here is not None:
        loops: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(here, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            loops = [(g.target, g.iter) for g in here.generators]
        elif isinstance(here, ast.For | ast.AsyncFor) and child in here.body:
            loops = [(here.target, here.iter)]
        for target, iterable in loops:
            found = _bound(name, target, iterable, here, parents, tree)
            if found is not _NOT_BOUND:
                return found
        child, here = here, parents.get(here)
    return _NOT_BOUND


def _bound(
    name: str,
    target: ast.expr,
    iterable: ast.expr,
    at: ast.AST,
    parents: dict[ast.AST, ast.AST],
    tree: ast.Module,
) -> object:
    """The values `target` gives `name` looping over `iterable`; _NOT_BOUND when it does not bind it."""
    names = [getattr(element, "id", None) for element in getattr(target, "elts", [target])]
    if name not in names:
        return _NOT_BOUND
    items = _items(iterable, at, parents, tree)
    if items is None:
        return None
    if isinstance(target, ast.Tuple):
        index = names.index(name)
        if not all(isinstance(item, tuple) and len(item) == len(names) for item in items):
            return None
        items = [typing.cast(tuple[object, ...], item)[index] for item in items]
    return items if all(isinstance(item, str) for item in items) else None


def _items(
    expr: ast.expr, at: ast.AST, parents: dict[ast.AST, ast.AST], tree: ast.Module
) -> list[object] | None:
    """What a loop goes over, when the code lists it: a literal, or a name bound to one in the enclosing
    function or the module, or a constant the module imports from another."""
    try:
        value = ast.literal_eval(expr)
    except ValueError:
        value = None
    if isinstance(value, tuple | list | set | frozenset):
        return list(value)
    if not isinstance(expr, ast.Name):
        return None
    for scope in [*_functions_around(at, parents), tree]:
        assigned = _assigned(expr.id, scope)
        if assigned is not None:
            return _items(assigned, assigned, parents, tree)
    imported = _imported(expr.id, tree)
    return list(values_of(imported)) if imported is not None else None


def _functions_around(
    node: ast.AST, parents: dict[ast.AST, ast.AST]
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions `node` is in, innermost first."""
    around = []
    here = parents.get(node)
    while here is not None:
        if isinstance(here, ast.FunctionDef | ast.AsyncFunctionDef):
            around.append(here)
        here = parents.get(here)
    return around


def _assigned(name: str, scope: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    """The value of the one assignment to `name` in a function (anywhere in it) or a module (at its
    top); None when there is not exactly one, since a name assigned twice could hold either."""
    statements = ast.walk(scope) if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) else scope.body
    values = []
    for statement in statements:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        else:
            continue
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            values.append(statement.value)
    return values[0] if len(values) == 1 else None


def _argument_values(
    name: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    parents: dict[ast.AST, ast.AST],
    tree: ast.Module,
    depth: int,
) -> object:
    """The values the calls of a module-private `function` (`_act`) pass as its parameter `name`;
    _NOT_BOUND when `name` is no parameter. Only a private function: its calls are all in its module."""
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    if name not in params + [a.arg for a in function.args.kwonlyargs]:
        return _NOT_BOUND
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _called_name(node) == function.name
        and function.name.startswith("_")
    ]
    values: list[str] = []
    for call in calls:
        offset = 1 if params[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute) else 0
        keyword = next((k.value for k in call.keywords if k.arg == name), None)
        index = params.index(name) - offset if name in params else len(call.args)
        if any(isinstance(arg, ast.Starred) for arg in call.args[: index + 1]):
            return None
        passed = keyword if keyword is not None else call.args[index] if index < len(call.args) else None
        found = None if passed is None else expression_values(passed, parents, tree, depth + 1)
        if found is None:
            return None
        values += found
    return _unique(values) if calls else None


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _imported(name: str, tree: ast.Module) -> object | None:
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module and statement.level == 0:
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    return getattr(importlib.import_module(statement.module), alias.name, None)
    return None
