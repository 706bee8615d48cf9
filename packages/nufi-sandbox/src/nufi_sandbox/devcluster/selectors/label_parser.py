"""The `labelSelector` query parameter: lexer and parser, with the API server's error messages."""

from __future__ import annotations

from collections.abc import Iterator

from nufi_sandbox.devcluster.selectors.errors import SelectorError
from nufi_sandbox.devcluster.selectors.labels import (
    LabelSelector,
    Operator,
    Requirement,
    field_invalid,
    new_requirement,
)
from nufi_sandbox.devcluster.validation.names import qualified_name_errors

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
            raise SelectorError(field_invalid("<nil>", key, "; ".join(key_errors)))
        if negated:
            return new_requirement(key, Operator.DOES_NOT_EXIST, [])
        if self.peek()[0] in (_END, ","):
            return new_requirement(key, Operator.EXISTS, [])
        kind, literal = self.take(as_value=False)
        if kind not in _OPERATORS:
            raise SelectorError(f"found '{literal}', expected: {_BINARY_OPERATORS}")
        op = _OPERATORS[kind]
        values = self.set_values() if op in (Operator.IN, Operator.NOT_IN) else self.exact_value()
        return new_requirement(key, op, sorted(set(values)))

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
