"""Resource lists (`corev1.ResourceList`) and the arithmetic quota does on them.

An amount keeps the format its text came in, so a sum prints the way the API server prints it: adding
to zero takes the other operand's format (`resource.Quantity.Add`), otherwise the first one's stays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import NamedTuple

from nufi_sandbox.devcluster.validation.quantity import (
    QuantityError,
    QuantityFormat,
    format_quantity,
    parse_quantity_with_format,
)


class Amount(NamedTuple):
    value: Decimal
    fmt: QuantityFormat = QuantityFormat.DECIMAL_SI

    def __str__(self) -> str:
        return format_quantity(self.value, self.fmt)

    def plus(self, other: Amount) -> Amount:
        fmt = other.fmt if self.value == 0 else self.fmt
        return Amount(self.value + other.value, fmt)


ZERO = Amount(Decimal(0))
ONE = Amount(Decimal(1))
ResourceList = dict[str, Amount]


def parse_list(raw: object) -> ResourceList:
    """A decoded `{name: quantity}` map; entries that are not quantities are left out."""
    out: ResourceList = {}
    if not isinstance(raw, Mapping):
        return out
    for name, text in raw.items():
        try:
            value, fmt = parse_quantity_with_format(str(text))
        except QuantityError:
            continue
        out[str(name)] = Amount(value, fmt)
    return out


def add(a: Mapping[str, Amount], b: Mapping[str, Amount]) -> ResourceList:
    out = dict(a)
    for name, amount in b.items():
        out[name] = out[name].plus(amount) if name in out else amount
    return out


def subtract_non_negative(a: Mapping[str, Amount], b: Mapping[str, Amount]) -> ResourceList:
    out = dict(a)
    for name, amount in b.items():
        if name in out:
            out[name] = Amount(max(Decimal(0), out[name].value - amount.value), out[name].fmt)
    return out


def max_into(target: ResourceList, other: Mapping[str, Amount]) -> None:
    """`maxResourceList`: each of `other`'s entries replaces a smaller or missing one in `target`."""
    for name, amount in other.items():
        if name not in target or amount.value > target[name].value:
            target[name] = amount


def mask(items: Mapping[str, Amount], names: Iterable[str]) -> ResourceList:
    keep = set(names)
    return {name: amount for name, amount in items.items() if name in keep}


def without_zeros(items: Mapping[str, Amount]) -> ResourceList:
    return {name: amount for name, amount in items.items() if amount.value != 0}


def exceeded(usage: Mapping[str, Amount], hard: Mapping[str, Amount]) -> list[str]:
    """`quota.LessThanOrEqual`'s second result: the names whose usage is above a hard limit."""
    return [name for name, limit in hard.items() if name in usage and usage[name].value > limit.value]


def pretty(items: Mapping[str, Amount]) -> str:
    """`name=quantity` pairs sorted by name, comma-joined, as quota's error messages print them."""
    return ",".join(f"{name}={items[name]}" for name in sorted(items))


def as_text(items: Mapping[str, Amount]) -> dict[str, str]:
    return {name: str(amount) for name, amount in sorted(items.items())}
