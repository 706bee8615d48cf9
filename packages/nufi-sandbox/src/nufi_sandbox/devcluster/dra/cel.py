"""CEL device selectors as the scheduler evaluates them: compiled once, run per device, upstream's errors.

The environment is upstream's (`dynamic-resource-allocation/cel`): one variable `device` with `driver`,
`attributes` and `capacity` grouped by domain (an attribute without a domain belongs to the device's
driver), `allowMultipleAllocations`, and the semver and quantity libraries (`cel_values`). A domain the
device does not have reads as an empty map; a name missing from a domain is an evaluation error, which
aborts the allocation. Not supported by the bindings: `cel.bind()` and compile-time type checking, so a
non-boolean result is caught when the selector runs rather than when it is stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cel

from nufi_sandbox.devcluster.dra.cel_values import CelValueError, library, quantity_value, semver_value

Obj = dict[str, Any]

_PARSE_PREFIX = re.compile(r"^Failed to parse expression '.*?': ", re.DOTALL)
_STRING_LITERAL = re.compile(r"""(['"])((?:\\.|(?!\1).)*)\1""")
_BOUND = re.compile(r"\.\s*(?:all|exists|exists_one|map|filter)\s*\(\s*([A-Za-z_]\w*)\s*,")
_FUNCTION_FAILED = re.compile(r"failed: (?:\w+Error|\w+): (.*?)\.? Check function arguments", re.DOTALL)
_LIBRARY = library()
_RESULT_TYPES = {
    bool: "bool",
    int: "int",
    float: "double",
    str: "string",
    list: "list",
    dict: "map",
    bytes: "bytes",
}


class CelCompileError(ValueError):
    """A selector that does not compile; `detail` is the API server's text for the field."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class CelRuntimeError(RuntimeError):
    """A selector that failed on one device (a missing attribute, a wrong type)."""


@dataclass(frozen=True)
class CompiledSelector:
    expression: str
    program: cel.Program
    # Domains an expression may look up; absent ones read as empty maps, as upstream's do.
    literals: frozenset[str]

    def matches(self, device: Mapping[str, Any]) -> bool:
        """True or False for the device's CEL input (`device_input`); CelRuntimeError if it fails."""
        variables = _with_empty_domains(device, self.literals)
        try:
            result = self.program.execute(cel.Context(variables={"device": variables}, functions=_LIBRARY))
        except (KeyError, RuntimeError, ValueError, TypeError, CelValueError) as exc:
            raise CelRuntimeError(_runtime_text(exc)) from exc
        if not isinstance(result, bool):
            kind = _RESULT_TYPES.get(type(result), "null_type" if result is None else type(result).__name__)
            raise CelRuntimeError(f"CEL result of type {kind} could not be converted to bool")
        return result


def _runtime_text(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no such key: {exc.args[0] if exc.args else ''}"
    text = str(exc)
    found = _FUNCTION_FAILED.search(text)
    return found.group(1) if found else text


def _with_empty_domains(device: Mapping[str, Any], literals: frozenset[str]) -> Obj:
    out = dict(device)
    for field in ("attributes", "capacity"):
        domains = dict(out.get(field) or {})
        for literal in literals - domains.keys():
            domains[literal] = {}
        out[field] = domains
    return out


def _caret(expression: str, offset: int) -> str:
    line = expression.count("\n", 0, offset) + 1
    start = expression.rfind("\n", 0, offset) + 1
    end = expression.find("\n", offset)
    text = expression[start : end if end >= 0 else len(expression)]
    column = offset - start
    return f"ERROR: <input>:{line}:{column + 1}: %s\n | {text}\n | {'.' * column}^"


def _undeclared(expression: str, program: cel.Program) -> str | None:
    bound = set(_BOUND.findall(expression))
    without_strings = _STRING_LITERAL.sub(lambda m: " " * len(m.group(0)), expression)
    for name in program.variables():
        if name == "device" or name in bound:
            continue
        found = re.search(rf"(?<![\w.]){re.escape(name)}\b", without_strings)
        offset = found.start() if found else 0
        return _caret(expression, offset) % f"undeclared reference to '{name}' (in container '')"
    return None


@lru_cache(maxsize=1024)
def compile_selector(expression: str) -> CompiledSelector:
    """Compile once per text (the scheduler runs one selector over many devices); CelCompileError if
    the API server would refuse it, with its `compilation failed: ...` text."""
    try:
        program = cel.compile(expression)
    except ValueError as exc:
        # cel-go indents the quoted source and the caret under it by one space.
        issues = _PARSE_PREFIX.sub("", str(exc)).replace("\n| ", "\n | ")
        raise CelCompileError(f"compilation failed: {issues}") from exc
    problem = _undeclared(expression, program)
    if problem is not None:
        raise CelCompileError(f"compilation failed: {problem}")
    literals = frozenset(m.group(2) for m in _STRING_LITERAL.finditer(expression))
    return CompiledSelector(expression, program, literals)


def compile_error(expression: str) -> str | None:
    """The API server's complaint about a selector's expression, or None if it compiles."""
    try:
        compile_selector(expression)
    except CelCompileError as exc:
        return exc.detail
    return None


def _attribute_value(raw: Mapping[str, Any]) -> Any:
    if "version" in raw:
        return semver_value(str(raw["version"]))
    for kind in ("string", "int", "bool"):
        if kind in raw:
            return raw[kind]
    return None


def split_name(driver: str, name: str) -> tuple[str, str]:
    """(domain, id) of an attribute or capacity name; one without a domain belongs to the driver."""
    domain, _, ident = name.rpartition("/")
    return (domain or driver), ident


def device_input(driver: str, device: Mapping[str, Any]) -> Obj:
    """The `device` variable a selector sees for one device of a ResourceSlice of `driver`."""
    attributes: dict[str, Obj] = {}
    for name, raw in (device.get("attributes") or {}).items():
        domain, ident = split_name(driver, name)
        attributes.setdefault(domain, {})[ident] = _attribute_value(raw or {})
    capacity: dict[str, Obj] = {}
    for name, raw in (device.get("capacity") or {}).items():
        domain, ident = split_name(driver, name)
        try:
            capacity.setdefault(domain, {})[ident] = quantity_value(str((raw or {}).get("value", "0")))
        except CelValueError:
            continue
    return {
        "driver": driver,
        "attributes": attributes,
        "capacity": capacity,
        "allowMultipleAllocations": bool(device.get("allowMultipleAllocations", False)),
    }
