"""Kubernetes' rules for resources: quantities, and what a pod holds.

Quantities (`8`, `500m`, `64Gi`, `1e3`) are read as Kubernetes reads them; extended resources (the
devices a device plugin advertises, `nvidia.com/gpu`) are whole numbers, so a fraction rounds up. The
syntax of an extended resource's name is a device type's field rule (`nufi.models.resource_keys`).

What a pod holds of each extended resource follows the scheduler's rule (`effective_requests`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from typing import Any

from pydantic_core import PydanticCustomError

from nufi.messages import Message
from nufi.models.resource_keys import RESERVED_DOMAIN

# The longest quantity a caller may write (NuFi's bound, not Kubernetes').
MAX_QUANTITY_LENGTH = 32
_QUANTITY = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?")
_SUFFIXES: dict[str, Decimal] = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    **{suffix: Decimal(1024**power) for power, suffix in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"), 1)},
}


def parse_quantity(text: str) -> Decimal:
    """The value of a Kubernetes quantity such as `8`, `500m`, `64Gi` or `1e3`."""
    match = _QUANTITY.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a Kubernetes quantity (e.g. 8, 500m, 64Gi)")
    number, suffix = match.group(1), match.group(2) or ""
    try:
        if suffix not in _SUFFIXES:  # an exponent, `e3`; `E` and `Ei` are suffixes
            return Decimal(number) * (Decimal(10) ** int(suffix[1:]))
        return Decimal(number) * _SUFFIXES[suffix]
    except DecimalException:  # an exponent beyond what a Decimal holds ("1e999999999") overflows
        raise ValueError(f"{text!r} is not a Kubernetes quantity (e.g. 8, 500m, 64Gi)") from None


_BINARY = (("Ei", 1024**6), ("Pi", 1024**5), ("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))


def format_quantity(amount: Decimal, resource: str) -> str:
    """An amount of `resource` as a person reads it: bytes (storage, memory) in the largest binary unit
    that holds it whole (`2Gi`), anything else as a plain number (`3`, `0.5`)."""
    if resource.endswith(("storage", "memory")):
        for suffix, size in _BINARY:
            if amount >= size and amount % size == 0:
                return f"{amount // size}{suffix}"
    return format(amount.normalize(), "f")


def quantity_to_int(text: str) -> int:
    """A count of devices: extended resources are whole numbers, and a fraction rounds up as
    Kubernetes does when it reports an integer value."""
    return math.ceil(parse_quantity(text))


def is_extended_resource(name: str) -> bool:
    """Whether `name` is outside Kubernetes' own resources (it has a domain that is not kubernetes.io)."""
    return "/" in name and RESERVED_DOMAIN not in name


@dataclass(frozen=True)
class QuantityRange:
    """The amounts of one kind of resource Kubernetes honours, and how a refusal shows the bounds."""

    least: Decimal
    most: Decimal
    least_shown: str
    most_shown: str


_INT64_MAX = 2**63 - 1
# CPU is counted in milli-cores (the scheduler's and the kubelet's MilliValue): less than 1m is nothing,
# and more milli-cores than an int64 holds is clamped or refused, leaving a pod that never schedules.
CPU = QuantityRange(Decimal("0.001"), Decimal(_INT64_MAX) / 1000, "1m", f"{_INT64_MAX}m")
# Memory and storage are counted in whole bytes (Value): a fraction of a byte is no amount at all.
BYTES = QuantityRange(Decimal(1), Decimal(_INT64_MAX), "1", str(_INT64_MAX))


def check_quantity(value: str, bounds: QuantityRange) -> None:
    """A positive Kubernetes quantity such as "500m", "2", "2Gi", within what Kubernetes honours for
    the resource (`bounds`); for a model's validator, a PydanticCustomError whose type is the catalog
    code (`quantity.*`) otherwise."""
    if len(value) > MAX_QUANTITY_LENGTH:
        raise _refused(Message("quantity.too_long", {"max": MAX_QUANTITY_LENGTH}))
    try:
        amount = parse_quantity(value)
    except ValueError:
        raise _refused(Message("quantity.invalid", {"value": value})) from None
    if value != value.strip() or value.startswith(("+", "-")) or amount <= 0:
        raise _refused(Message("quantity.not_positive", {"value": value}))
    if not bounds.least <= amount <= bounds.most:
        raise _refused(
            Message(
                "quantity.out_of_range",
                {"value": value, "least": bounds.least_shown, "most": bounds.most_shown},
            )
        )


def _refused(said: Message) -> PydanticCustomError:
    # The English sentence as pydantic's own message; the faces word the code from the catalogs.
    return PydanticCustomError(said.code, said.text("en"), dict(said.params))


def effective_requests(pod_spec: Mapping[str, Any]) -> dict[str, int]:
    """What a pod holds of each extended resource, by the scheduler's rule: the larger of the app
    containers plus sidecars, and each init container plus the sidecars started before it."""
    running: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    peak: dict[str, int] = {}
    for container in pod_spec.get("initContainers") or []:
        requests = _container_requests(container)
        if container.get("restartPolicy") == "Always":
            _add(sidecars, requests)
            continue
        for name, amount in requests.items():
            peak[name] = max(peak.get(name, 0), amount + sidecars.get(name, 0))
    for container in pod_spec.get("containers") or []:
        _add(running, _container_requests(container))
    _add(running, sidecars)
    names = set(running) | set(peak)
    return {name: max(running.get(name, 0), peak.get(name, 0)) for name in sorted(names)}


def _container_requests(container: Mapping[str, Any]) -> dict[str, int]:
    resources = container.get("resources") or {}
    # For extended resources a limit alone is also the request (they cannot be overcommitted).
    declared = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    found = {}
    for name, text in declared.items():
        if is_extended_resource(name):
            try:
                found[name] = quantity_to_int(str(text))
            except ValueError:
                continue  # the API server validates quantities; a bad one cannot hold devices
    return found


def _add(total: dict[str, int], more: Mapping[str, int]) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, 0) + amount
