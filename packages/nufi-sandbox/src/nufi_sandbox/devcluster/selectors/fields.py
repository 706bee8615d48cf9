"""Field selectors: the `fieldSelector` query parameter, parsed and matched like the API server does."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from nufi_sandbox.devcluster.selectors.errors import SelectorError

ALWAYS_SUPPORTED_FIELDS = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    value: str
    negated: bool = False

    def matches(self, obj: Mapping[str, Any]) -> bool:
        return (field_value(obj, self.field) == self.value) != self.negated

    def __str__(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")
        return f"{self.field}{'!=' if self.negated else '='}{escaped}"


@dataclass(frozen=True)
class FieldSelector:
    requirements: tuple[FieldRequirement, ...] = ()

    def matches(self, obj: Mapping[str, Any]) -> bool:
        return all(req.matches(obj) for req in self.requirements)

    def __str__(self) -> str:
        return ",".join(str(req) for req in self.requirements)


def field_value(obj: Mapping[str, Any], path: str) -> str:
    """The string a field selector compares against; absent fields read as ""."""
    current: Any = obj
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return ""
        current = current[part]
    if current is None:
        return ""
    if isinstance(current, bool):
        return "true" if current else "false"
    return str(current)


def _split_unescaped(text: str) -> list[str]:
    terms, start, escaped = [], 0, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    i = 0
    while i < len(term):
        if term[i] == "\\":
            i += 2
            continue
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
        i += 1
    return None


def _unescape(value: str) -> str:
    out: list[str] = []
    escaped = False
    for char in value:
        if escaped:
            if char not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{char}")
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            # Go prints the rune as its code point here, and so do we.
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(char)}")
        else:
            out.append(char)
    if escaped:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_field_selector(text: str, supported: Collection[str]) -> FieldSelector:
    """Parse `fieldSelector`; `metadata.name` and `metadata.namespace` are always supported."""
    allowed = set(supported) | set(ALWAYS_SUPPORTED_FIELDS)
    requirements = []
    for term in sorted(_split_unescaped(text)) if text else []:
        if not term:
            continue
        split = _split_term(term)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{term}'")
        field, op, raw_value = split
        requirements.append(FieldRequirement(field, _unescape(raw_value), negated=op == "!="))
    for requirement in requirements:
        if requirement.field not in allowed:
            raise SelectorError(f"field label not supported: {requirement.field}")
    return FieldSelector(tuple(requirements))
