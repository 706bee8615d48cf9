"""Label and field selectors as the Kubernetes API server parses and evaluates them.

Also home of the label syntax checks (qualified names, label values, DNS-1123 subdomains),
because a selector is where that syntax is first enforced; validation reuses them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class SelectorError(ValueError):
    """A selector that the real API server would reject (HTTP 400)."""


# --- label syntax (apimachinery util/validation) -------------------------------------------

_QNAME_PART = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_QNAME_RE = re.compile(_QNAME_PART)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN)


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """The API server's wording for a regex failure, double spaces included."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def dns1123_subdomain_errors(value: str) -> list[str]:
    errors = []
    if len(value) > 253:
        errors.append(max_len_error(253))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(
            regex_error(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                "'-' or '.', and must start and end with an alphanumeric character",
                _DNS1123_SUBDOMAIN,
                "example.com",
            )
        )
    return errors


_QNAME_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)


def qualified_name_errors(value: str) -> list[str]:
    """Errors for a label key / annotation key / condition type (`IsQualifiedName`)."""
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) > 2:
        return [
            "a qualified name "
            + regex_error(_QNAME_MESSAGE, _QNAME_PART, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + msg for msg in dns1123_subdomain_errors(prefix))
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part " + max_len_error(63))
    if not _QNAME_RE.fullmatch(name):
        errors.append("name part " + regex_error(_QNAME_MESSAGE, _QNAME_PART, "MyName", "my.name", "123-abc"))
    return errors


def label_value_errors(value: str) -> list[str]:
    errors = []
    if len(value) > 63:
        errors.append(max_len_error(63))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            regex_error(
                "a valid label must be an empty string or consist of alphanumeric characters, "
                "'-', '_' or '.', and must start and end with an alphanumeric character",
                _LABEL_VALUE,
                "MyValue",
                "my_value",
                "12345",
            )
        )
    return errors


def go_quote(value: str) -> str:
    """Close enough to Go's %q for the strings that appear in API messages."""
    return json.dumps(value, ensure_ascii=False)


# --- label selectors --------------------------------------------------------------------------


class Operator(StrEnum):
    IN = "in"
    NOT_IN = "notin"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    NOT_EQUALS = "!="
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"


_INT64 = re.compile(r"[+-]?[0-9]+")


def _as_int64(text: str) -> int | None:
    if not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: Operator
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        present = self.key in labels
        if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
            return present and labels[self.key] in self.values
        if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
            return not present or labels[self.key] not in self.values
        if op is Operator.EXISTS:
            return present
        if op is Operator.DOES_NOT_EXIST:
            return not present
        if not present or len(self.values) != 1:
            return False
        actual, bound = _as_int64(labels[self.key]), _as_int64(self.values[0])
        if actual is None or bound is None:
            return False
        return actual > bound if op is Operator.GREATER_THAN else actual < bound

    def __str__(self) -> str:
        op = self.operator
        if op is Operator.EXISTS:
            return self.key
        if op is Operator.DOES_NOT_EXIST:
            return "!" + self.key
        joined = ",".join(sorted(self.values))
        if op in (Operator.IN, Operator.NOT_IN):
            return f"{self.key} {op.value} ({joined})"
        symbol = {Operator.GREATER_THAN: ">", Operator.LESS_THAN: "<"}.get(op, op.value)
        return f"{self.key}{symbol}{joined}"


@dataclass(frozen=True)
class LabelSelector:
    """Requirements ANDed together; `nothing` is the selector of a missing structured selector."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.nothing:
            return False
        present = labels or {}
        return all(req.matches(present) for req in self.requirements)

    @property
    def is_everything(self) -> bool:
        return not self.nothing and not self.requirements

    def __str__(self) -> str:
        return ",".join(str(req) for req in self.requirements)


EVERYTHING = LabelSelector()
NOTHING = LabelSelector(nothing=True)


def _field_invalid(path: str, value: object, detail: str) -> str:
    shown = go_quote(value) if isinstance(value, str) else _go_string_slice(value)
    return f"{path}: Invalid value: {shown}: {detail}"


def _go_string_slice(value: object) -> str:
    items = value if isinstance(value, list | tuple) else []
    return "[]string{" + ", ".join(go_quote(str(item)) for item in items) + "}"


def _requirement(key: str, op: Operator, values: list[str], key_path: str = "key") -> Requirement:
    """Build a requirement with the checks of `labels.NewRequirement`."""
    errors: list[str] = []
    key_errors = qualified_name_errors(key)
    if key_errors:
        errors.append(_field_invalid(key_path, key, "; ".join(key_errors)))
    if op in (Operator.IN, Operator.NOT_IN) and not values:
        errors.append(
            _field_invalid("values", values, "for 'in', 'notin' operators, values set can't be empty")
        )
    elif op in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS) and len(values) != 1:
        errors.append(_field_invalid("values", values, "exact-match compatibility requires one single value"))
    elif op in (Operator.EXISTS, Operator.DOES_NOT_EXIST) and values:
        errors.append(
            _field_invalid("values", values, "values set must be empty for exists and does not exist")
        )
    elif op in (Operator.GREATER_THAN, Operator.LESS_THAN):
        if len(values) != 1:
            errors.append(
                _field_invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, value in enumerate(values):
            if _as_int64(value) is None:
                errors.append(
                    _field_invalid(
                        f"values[{i}]", value, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    for i, value in enumerate(values):
        value_errors = label_value_errors(value)
        if value_errors:
            errors.append(_field_invalid(f"values[{i}][{key}]", value, "; ".join(value_errors)))
    if errors:
        raise SelectorError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
    return Requirement(key, op, tuple(sorted(set(values))))


# Lexer token kinds; keywords double as identifiers wherever a value is expected.
_IDENT, _END = "identifier", "end"
_SYMBOLS = {"(", ")", ",", "!", "=", "==", "!=", "<", ">", "in", "notin"}
_SPECIAL = set("=!(),<>")
_WHITESPACE = " \t\r\n"
_OPERATORS = {
    "in": Operator.IN,
    "notin": Operator.NOT_IN,
    "=": Operator.EQUALS,
    "==": Operator.DOUBLE_EQUALS,
    "!=": Operator.NOT_EQUALS,
    ">": Operator.GREATER_THAN,
    "<": Operator.LESS_THAN,
}
_BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"


def _lex(text: str) -> Iterator[tuple[str, str]]:
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            yield _END, ""
            return
        if text[i] in _SPECIAL:
            j = i + 1
            while j < n and text[i : j + 1] in _SYMBOLS:
                j += 1
            yield text[i:j], text[i:j]
        else:
            j = i
            while j < n and text[j] not in _WHITESPACE and text[j] not in _SPECIAL:
                j += 1
            word = text[i:j]
            yield (word if word in ("in", "notin") else _IDENT), word
        i = j


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = list(_lex(text))
        self.pos = 0

    def peek(self, as_value: bool = True) -> tuple[str, str]:
        kind, literal = self.tokens[self.pos]
        return (_IDENT if as_value and kind in ("in", "notin") else kind), literal

    def take(self, as_value: bool = True) -> tuple[str, str]:
        token = self.peek(as_value)
        self.pos = min(self.pos + 1, len(self.tokens) - 1)
        return token

    def selector(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            kind, literal = self.peek()
            if kind == _END:
                return requirements
            if kind not in (_IDENT, "!"):
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self.requirement())
            except SelectorError as exc:
                raise SelectorError(f"unable to parse requirement: {exc}") from None
            kind, literal = self.take()
            if kind == _END:
                return requirements
            if kind != ",":
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            kind, literal = self.peek()
            if kind not in (_IDENT, "!"):
                raise SelectorError(f"found '{literal}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        kind, key = self.take()
        negated = kind == "!"
        if negated:
            kind, key = self.take()
        if kind != _IDENT:
            raise SelectorError(f"found '{key}', expected: identifier")
        key_errors = qualified_name_errors(key)
        if key_errors:
            raise SelectorError(_field_invalid("<nil>", key, "; ".join(key_errors)))
        if negated:
            return _requirement(key, Operator.DOES_NOT_EXIST, [])
        if self.peek()[0] in (_END, ","):
            return _requirement(key, Operator.EXISTS, [])
        kind, literal = self.take(as_value=False)
        if kind not in _OPERATORS:
            raise SelectorError(f"found '{literal}', expected: {_BINARY_OPERATORS}")
        op = _OPERATORS[kind]
        values = self.set_values() if op in (Operator.IN, Operator.NOT_IN) else self.exact_value()
        return _requirement(key, op, sorted(set(values)))

    def exact_value(self) -> list[str]:
        kind, literal = self.peek()
        if kind in (_END, ","):
            return [""]
        kind, literal = self.take()
        if kind != _IDENT:
            raise SelectorError(f"found '{literal}', expected: identifier")
        return [literal]

    def set_values(self) -> list[str]:
        kind, literal = self.take()
        if kind != "(":
            raise SelectorError(f"found '{literal}' expected: '('")
        kind, literal = self.peek()
        if kind == ")":
            self.take()
            return [""]
        if kind not in (_IDENT, ","):
            raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.value_list()
        kind, _ = self.take()
        if kind != ")":
            raise SelectorError(f"found '{literal}', expected: ')'")
        return values

    def value_list(self) -> list[str]:
        values: list[str] = []
        while True:
            kind, literal = self.take()
            if kind == _IDENT:
                values.append(literal)
                following, shown = self.peek()
                if following == ")":
                    return values
                if following != ",":
                    raise SelectorError(f"found '{shown}', expected: ',' or ')'")
            elif kind == ",":
                # An empty slot between commas or next to a parenthesis is the empty value.
                if not values:
                    values.append("")
                following, _ = self.peek()
                if following == ")":
                    values.append("")
                    return values
                if following == ",":
                    self.take()
                    values.append("")
            else:
                raise SelectorError(f"found '{literal}', expected: ',', or identifier")


def parse_label_selector(text: str) -> LabelSelector:
    """Parse the `labelSelector` query parameter syntax."""
    requirements = _Parser(text).selector()
    return LabelSelector(tuple(sorted(requirements, key=lambda req: req.key)))


_STRUCTURED_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}


def label_selector_from_object(selector: Mapping[str, Any] | None) -> LabelSelector:
    """Convert a structured selector (`matchLabels` + `matchExpressions`).

    `None` selects nothing, `{}` selects everything, as in `metav1.LabelSelectorAsSelector`.
    """
    if selector is None:
        return NOTHING
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping) or not isinstance(expressions, list):
        raise SelectorError("invalid label selector: matchLabels must be a map, matchExpressions a list")
    requirements = [_requirement(str(k), Operator.EQUALS, [str(v)]) for k, v in match_labels.items()]
    for expression in expressions:
        if not isinstance(expression, Mapping):
            raise SelectorError("invalid label selector: each matchExpression must be an object")
        operator = expression.get("operator")
        if operator not in _STRUCTURED_OPERATORS:
            raise SelectorError(f"{go_quote(str(operator or ''))} is not a valid label selector operator")
        values = expression.get("values") or []
        requirements.append(
            _requirement(
                str(expression.get("key", "")), _STRUCTURED_OPERATORS[operator], [str(v) for v in values]
            )
        )
    return LabelSelector(tuple(sorted(requirements, key=lambda req: req.key)))


def label_selector_from_map(labels: Mapping[str, str] | None) -> LabelSelector:
    """A plain equality map such as a Service's `spec.selector`; empty selects everything."""
    requirements = [_requirement(str(k), Operator.EQUALS, [str(v)]) for k, v in (labels or {}).items()]
    return LabelSelector(tuple(sorted(requirements, key=lambda req: req.key)))


# --- field selectors --------------------------------------------------------------------------

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

    @property
    def is_everything(self) -> bool:
        return not self.requirements

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
