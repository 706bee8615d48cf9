"""Label selectors: requirements, their checks, matching, and the structured forms objects carry."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from nufi_sandbox.devcluster.selectors.errors import SelectorError
from nufi_sandbox.devcluster.validation.names import go_quote, label_value_errors, qualified_name_errors


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

    def __str__(self) -> str:
        return ",".join(str(req) for req in self.requirements)


EVERYTHING = LabelSelector()
NOTHING = LabelSelector(nothing=True)


def field_invalid(path: str, value: object, detail: str) -> str:
    shown = go_quote(value) if isinstance(value, str) else _go_string_slice(value)
    return f"{path}: Invalid value: {shown}: {detail}"


def _go_string_slice(value: object) -> str:
    items = value if isinstance(value, list | tuple) else []
    return "[]string{" + ", ".join(go_quote(str(item)) for item in items) + "}"


def new_requirement(key: str, op: Operator, values: list[str], key_path: str = "key") -> Requirement:
    """Build a requirement with the checks of `labels.NewRequirement`."""
    errors: list[str] = []
    key_errors = qualified_name_errors(key)
    if key_errors:
        errors.append(field_invalid(key_path, key, "; ".join(key_errors)))
    if op in (Operator.IN, Operator.NOT_IN) and not values:
        errors.append(
            field_invalid("values", values, "for 'in', 'notin' operators, values set can't be empty")
        )
    elif op in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS) and len(values) != 1:
        errors.append(field_invalid("values", values, "exact-match compatibility requires one single value"))
    elif op in (Operator.EXISTS, Operator.DOES_NOT_EXIST) and values:
        errors.append(
            field_invalid("values", values, "values set must be empty for exists and does not exist")
        )
    elif op in (Operator.GREATER_THAN, Operator.LESS_THAN):
        if len(values) != 1:
            errors.append(
                field_invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, value in enumerate(values):
            if _as_int64(value) is None:
                errors.append(
                    field_invalid(
                        f"values[{i}]", value, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    for i, value in enumerate(values):
        value_errors = label_value_errors(value)
        if value_errors:
            errors.append(field_invalid(f"values[{i}][{key}]", value, "; ".join(value_errors)))
    if errors:
        raise SelectorError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
    return Requirement(key, op, tuple(sorted(set(values))))


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
    requirements = [new_requirement(str(k), Operator.EQUALS, [str(v)]) for k, v in match_labels.items()]
    for expression in expressions:
        if not isinstance(expression, Mapping):
            raise SelectorError("invalid label selector: each matchExpression must be an object")
        operator = expression.get("operator")
        if operator not in _STRUCTURED_OPERATORS:
            raise SelectorError(f"{go_quote(str(operator or ''))} is not a valid label selector operator")
        values = expression.get("values") or []
        requirements.append(
            new_requirement(
                str(expression.get("key", "")), _STRUCTURED_OPERATORS[operator], [str(v) for v in values]
            )
        )
    return LabelSelector(tuple(sorted(requirements, key=lambda req: req.key)))


def label_selector_from_map(labels: Mapping[str, str] | None) -> LabelSelector:
    """A plain equality map such as a Service's `spec.selector`; empty selects everything."""
    requirements = [new_requirement(str(k), Operator.EQUALS, [str(v)]) for k, v in (labels or {}).items()]
    return LabelSelector(tuple(sorted(requirements, key=lambda req: req.key)))
