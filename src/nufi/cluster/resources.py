"""Kubernetes' rules for resources: quantities, extended-resource names, and what a pod holds.

Quantities (`8`, `500m`, `64Gi`, `1e3`) are read as Kubernetes reads them; extended resources (the
devices a device plugin advertises, `nvidia.com/gpu`) are whole numbers, so a fraction rounds up.

A name is an extended resource when it has a domain prefix that is not `kubernetes.io`, does not start
with `requests.`, and `requests.<name>` is a qualified name: a lowercase DNS-subdomain prefix of at most
253 characters, `/`, and a name part of at most 63 characters made of letters, digits, `-`, `_` and
`.`, starting and ending with a letter or digit. Every broken rule is reported, each in words an admin
can act on, so the wizard can show them all at once instead of one per attempt.

What a pod holds of each extended resource follows the scheduler's rule (`effective_requests`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from enum import StrEnum
from typing import Any

from pydantic_core import PydanticCustomError

from nufi.messages import Message

# Kubernetes keeps resource names under this domain (and its subdomains) for itself.
RESERVED_DOMAIN = "kubernetes.io/"
# The longest quantity a caller may write (NuFi's bound, not Kubernetes').
MAX_QUANTITY_LENGTH = 32
_QUOTA_PREFIX = "requests."
# Kubernetes checks the prefix with `requests.` in front of it, so 9 of the 253 characters are taken.
PREFIX_MAX_LENGTH = 253 - len(_QUOTA_PREFIX)
NAME_MAX_LENGTH = 63

_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
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


class ResourceKeyRule(StrEnum):
    """One rule of the extended-resource name syntax."""

    EMPTY = "empty"
    RESERVED_DOMAIN = "reserved-domain"
    MISSING_PREFIX = "missing-prefix"
    QUOTA_PREFIX = "requests-prefix"
    EXTRA_SLASH = "extra-slash"
    PREFIX_EMPTY = "prefix-empty"
    PREFIX_TOO_LONG = "prefix-too-long"
    PREFIX_SYNTAX = "prefix-syntax"
    NAME_EMPTY = "name-empty"
    NAME_TOO_LONG = "name-too-long"
    NAME_SYNTAX = "name-syntax"


@dataclass(frozen=True)
class ResourceKeyProblem:
    rule: ResourceKeyRule
    message: str


def resource_key_violations(key: str) -> list[ResourceKeyProblem]:
    """Every rule `key` breaks, in the order an admin would fix them; empty when `key` is valid."""
    if not key:
        return [
            _problem(
                ResourceKeyRule.EMPTY,
                "the resource key is empty: enter the name the device plugin advertises, "
                "e.g. 'hyperaccel.ai/lpu'",
            )
        ]
    problems: list[ResourceKeyProblem] = []
    if RESERVED_DOMAIN in key:
        problems.append(
            _problem(
                ResourceKeyRule.RESERVED_DOMAIN,
                f"'{key}': the '{RESERVED_DOMAIN}' domain is reserved for Kubernetes; "
                "use the domain of the device's vendor, e.g. 'example.com/npu'",
            )
        )
    if key.startswith(_QUOTA_PREFIX):
        problems.append(
            _problem(
                ResourceKeyRule.QUOTA_PREFIX,
                f"'{key}' must not start with 'requests.': Kubernetes uses that prefix for resource "
                "quotas; drop it",
            )
        )
    parts = key.split("/")
    if len(parts) == 1:
        problems.append(
            _problem(
                ResourceKeyRule.MISSING_PREFIX,
                f"'{key}' must contain a domain prefix such as 'example.com/': names without one are "
                f"Kubernetes' own resources (e.g. write 'example.com/{key}')",
            )
        )
    else:
        if len(parts) > 2:
            problems.append(
                _problem(
                    ResourceKeyRule.EXTRA_SLASH,
                    f"'{key}' contains {len(parts) - 1} '/'; it must contain exactly one, between the "
                    "domain prefix and the name (e.g. 'example.com/npu')",
                )
            )
        problems.extend(_prefix_problems(parts[0]))
    problems.extend(_name_problems(parts[-1]))
    return problems


def resource_key_problems(key: str) -> list[str]:
    """The messages of every rule `key` breaks; empty when `key` is a valid extended-resource name."""
    return [problem.message for problem in resource_key_violations(key)]


def is_valid_resource_key(key: str) -> bool:
    return not resource_key_violations(key)


def _prefix_problems(prefix: str) -> list[ResourceKeyProblem]:
    if not prefix:
        return [
            _problem(
                ResourceKeyRule.PREFIX_EMPTY,
                "the domain prefix before '/' is empty: write the vendor's domain there, "
                "e.g. 'example.com/npu'",
            )
        ]
    problems = []
    if len(prefix) > PREFIX_MAX_LENGTH:
        problems.append(
            _problem(
                ResourceKeyRule.PREFIX_TOO_LONG,
                f"the prefix must be at most {PREFIX_MAX_LENGTH} characters (it has {len(prefix)}): "
                "Kubernetes adds 'requests.' to it for quotas and allows 253 in all",
            )
        )
    if _DNS_SUBDOMAIN.fullmatch(prefix) is None:
        problems.append(
            _problem(
                ResourceKeyRule.PREFIX_SYNTAX,
                f"the prefix '{prefix}' must be a lowercase DNS subdomain: lowercase letters, digits, "
                "'-' and '.', each dot-separated part starting and ending with a letter or digit "
                "(e.g. 'hyperaccel.ai')",
            )
        )
    return problems


def _name_problems(name: str) -> list[ResourceKeyProblem]:
    if not name:
        return [
            _problem(
                ResourceKeyRule.NAME_EMPTY,
                "the name part after '/' is empty: write the resource's name there, e.g. 'example.com/npu'",
            )
        ]
    problems = []
    if len(name) > NAME_MAX_LENGTH:
        problems.append(
            _problem(
                ResourceKeyRule.NAME_TOO_LONG,
                f"the name part must be at most {NAME_MAX_LENGTH} characters ('{name}' has {len(name)})",
            )
        )
    if _NAME_PART.fullmatch(name) is None:
        problems.append(
            _problem(
                ResourceKeyRule.NAME_SYNTAX,
                f"the name part '{name}' must consist of letters, digits, '-', '_' and '.', and start "
                "and end with a letter or digit (e.g. 'lpu', 'ATOM', 'mig-1g.5gb')",
            )
        )
    return problems


def _problem(rule: ResourceKeyRule, message: str) -> ResourceKeyProblem:
    return ResourceKeyProblem(rule, message)
