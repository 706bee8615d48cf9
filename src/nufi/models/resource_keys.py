"""The syntax of an extended resource's name (a device type's resource key), as Kubernetes holds it.

A name is an extended resource when it has a domain prefix that is not `kubernetes.io`, does not start
with `requests.`, and `requests.<name>` is a qualified name: a lowercase DNS-subdomain prefix of at most
253 characters, `/`, and a name part of at most 63 characters made of letters, digits, `-`, `_` and
`.`, starting and ending with a letter or digit. Every broken rule is reported, each in words an admin
can act on, so the wizard can show them all at once instead of one per attempt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

# Kubernetes keeps resource names under this domain (and its subdomains) for itself.
RESERVED_DOMAIN = "kubernetes.io/"

_QUOTA_PREFIX = "requests."
# Kubernetes checks the prefix with `requests.` in front of it, so 9 of the 253 characters are taken.
PREFIX_MAX_LENGTH = 253 - len(_QUOTA_PREFIX)
NAME_MAX_LENGTH = 63

_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")


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
        problems.extend(_PREFIX.problems(parts[0]))
    problems.extend(_NAME.problems(parts[-1]))
    return problems


def resource_key_problems(key: str) -> list[str]:
    """The messages of every rule `key` breaks; empty when `key` is a valid extended-resource name."""
    return [problem.message for problem in resource_key_violations(key)]


def is_valid_resource_key(key: str) -> bool:
    return not resource_key_violations(key)


@dataclass(frozen=True)
class _Part:
    """One side of the `/`: what makes it empty, too long or of the wrong syntax, and how each is said
    (the texts take the part and its length)."""

    limit: int
    pattern: re.Pattern[str]
    empty: tuple[ResourceKeyRule, str]
    too_long: tuple[ResourceKeyRule, str]
    syntax: tuple[ResourceKeyRule, str]

    def problems(self, part: str) -> list[ResourceKeyProblem]:
        if not part:
            return [ResourceKeyProblem(*self.empty)]
        found = []
        if len(part) > self.limit:
            found.append(self._said(self.too_long, part))
        if self.pattern.fullmatch(part) is None:
            found.append(self._said(self.syntax, part))
        return found

    def _said(self, rule_and_text: tuple[ResourceKeyRule, str], part: str) -> ResourceKeyProblem:
        rule, text = rule_and_text
        return ResourceKeyProblem(rule, text.format(part=part, length=len(part), limit=self.limit))


_PREFIX = _Part(
    PREFIX_MAX_LENGTH,
    _DNS_SUBDOMAIN,
    (
        ResourceKeyRule.PREFIX_EMPTY,
        "the domain prefix before '/' is empty: write the vendor's domain there, e.g. 'example.com/npu'",
    ),
    (
        ResourceKeyRule.PREFIX_TOO_LONG,
        "the prefix must be at most {limit} characters (it has {length}): "
        "Kubernetes adds 'requests.' to it for quotas and allows 253 in all",
    ),
    (
        ResourceKeyRule.PREFIX_SYNTAX,
        "the prefix '{part}' must be a lowercase DNS subdomain: lowercase letters, digits, "
        "'-' and '.', each dot-separated part starting and ending with a letter or digit "
        "(e.g. 'hyperaccel.ai')",
    ),
)
_NAME = _Part(
    NAME_MAX_LENGTH,
    _NAME_PART,
    (
        ResourceKeyRule.NAME_EMPTY,
        "the name part after '/' is empty: write the resource's name there, e.g. 'example.com/npu'",
    ),
    (
        ResourceKeyRule.NAME_TOO_LONG,
        "the name part must be at most {limit} characters ('{part}' has {length})",
    ),
    (
        ResourceKeyRule.NAME_SYNTAX,
        "the name part '{part}' must consist of letters, digits, '-', '_' and '.', and start "
        "and end with a letter or digit (e.g. 'lpu', 'ATOM', 'mig-1g.5gb')",
    ),
)


def _problem(rule: ResourceKeyRule, message: str) -> ResourceKeyProblem:
    return ResourceKeyProblem(rule, message)
