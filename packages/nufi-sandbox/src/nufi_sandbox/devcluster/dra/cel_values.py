"""The values of the Kubernetes CEL libraries DRA selectors use: semver() and quantity(), as CEL maps.

The CEL bindings pass only plain values across, so a semver or a quantity is a one-key map (its
canonical text under a marker key): equal values compare equal with `==`, and the library's methods
(`compareTo`, `isGreaterThan`, `major`, `asInteger`...) are functions that read the marker back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from nufi_sandbox.devcluster.validation.quantity import QuantityError, format_quantity, parse_quantity

SEMVER = "__semver__"
QUANTITY = "__quantity__"

# Semantic Versioning 2.0.0, as the strict parser upstream uses reads it.
_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


class CelValueError(ValueError):
    """A library function given a value it cannot take; the evaluation fails with this text."""


def semver_value(text: str) -> dict[str, str]:
    if not isinstance(text, str) or _SEMVER.match(text) is None:
        raise CelValueError(f"could not parse semver: {text}")
    return {SEMVER: text}


def quantity_value(text: str | Decimal) -> dict[str, str]:
    try:
        amount = text if isinstance(text, Decimal) else parse_quantity(str(text))
    except QuantityError as exc:
        raise CelValueError(f"could not parse quantity: {exc}") from exc
    return {QUANTITY: format_quantity(amount)}


def _semver_key(text: str) -> tuple[Any, ...]:
    match = _SEMVER.match(text)
    assert match is not None
    major, minor, patch, pre = int(match[1]), int(match[2]), int(match[3]), match[4]
    # A release sorts after every pre-release of it; numeric identifiers sort before alphanumeric ones.
    pre_key: tuple[Any, ...] = (
        (1,) if pre is None else (0, *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")))
    )
    return (major, minor, patch, pre_key)


def _kind(value: object) -> str:
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if key in (SEMVER, QUANTITY):
            return str(key)
    raise CelValueError(f"no such overload: {type(value).__name__}")


def _amount(value: object) -> Decimal:
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if _kind(value) != QUANTITY:
        raise CelValueError("no such overload: semver with quantity")
    return parse_quantity(value[QUANTITY])  # type: ignore[index]


def compare_to(left: object, right: object) -> int:
    kind = _kind(left)
    if kind != _kind(right):
        raise CelValueError("no such overload: compareTo of a semver and a quantity")
    if kind == SEMVER:
        a, b = _semver_key(left[SEMVER]), _semver_key(right[SEMVER])  # type: ignore[index]
    else:
        a, b = _amount(left), _amount(right)  # type: ignore[assignment]
    return (a > b) - (a < b)


def _semver_part(index: int) -> Callable[[object], int]:
    def part(value: object) -> int:
        if _kind(value) != SEMVER:
            raise CelValueError("no such overload: not a semver")
        return int(_semver_key(value[SEMVER])[index])  # type: ignore[index]

    return part


def _as_integer(value: object) -> int:
    amount = _amount(value)
    if amount != amount.to_integral_value():
        raise CelValueError("cannot convert value to integer")
    return int(amount)


def library() -> dict[str, Callable[..., Any]]:
    """The functions and methods of the semver and quantity libraries, by name."""
    return {
        "semver": semver_value,
        "isSemver": lambda text: isinstance(text, str) and _SEMVER.match(text) is not None,
        "quantity": quantity_value,
        "isQuantity": _is_quantity,
        "compareTo": compare_to,
        "isGreaterThan": lambda a, b: compare_to(a, b) > 0,
        "isLessThan": lambda a, b: compare_to(a, b) < 0,
        "major": _semver_part(0),
        "minor": _semver_part(1),
        "patch": _semver_part(2),
        "asInteger": _as_integer,
        "isInteger": lambda value: _amount(value) == _amount(value).to_integral_value(),
        "asApproximateFloat": lambda value: float(_amount(value)),
        "sign": lambda value: (_amount(value) > 0) - (_amount(value) < 0),
        "add": lambda a, b: quantity_value(_amount(a) + _amount(b)),
        "sub": lambda a, b: quantity_value(_amount(a) - _amount(b)),
    }


def _is_quantity(text: object) -> bool:
    try:
        parse_quantity(str(text))
    except QuantityError:
        return False
    return isinstance(text, str)
