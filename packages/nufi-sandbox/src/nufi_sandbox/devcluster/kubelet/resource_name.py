"""Extended resource names, judged the way the Kubernetes API server and kubelet judge them.

A name is extended when it is not native (it has a ``/`` and does not use the ``kubernetes.io`` domain),
does not start with ``requests.``, and ``"requests." + name`` is a qualified name: a lowercase DNS
subdomain prefix, ``/``, and a name part of at most 63 characters.
"""

from __future__ import annotations

import re

_QUOTA_PREFIX = "requests."
_NATIVE_DOMAIN = "kubernetes.io/"
_DNS_SUBDOMAIN_MAX = 253
_NAME_PART_MAX = 63
# The quota prefix is prepended before the subdomain length is checked, so it eats into the budget.
_DOMAIN_MAX = _DNS_SUBDOMAIN_MAX - len(_QUOTA_PREFIX)

_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")


def extended_resource_name_problems(name: str) -> list[str]:
    """Every rule ``name`` breaks, in words; empty when it is a valid extended resource name."""
    if "/" not in name:
        return [
            "must have a domain prefix followed by '/' (e.g. 'vendor.example/accel'); "
            "names without one are native Kubernetes resources"
        ]
    problems: list[str] = []
    if _NATIVE_DOMAIN in name:
        problems.append(
            "must not use the kubernetes.io domain; any name containing 'kubernetes.io/' is native"
        )
    if name.startswith(_QUOTA_PREFIX):
        problems.append("must not start with 'requests.'")

    domain, _, rest = name.partition("/")
    if "/" in rest:
        problems.append("must contain exactly one '/' between the domain prefix and the name")
        return problems
    problems.extend(_domain_problems(domain))
    problems.extend(_name_part_problems(rest))
    return problems


def is_extended_resource_name(name: str) -> bool:
    """True when a device plugin may advertise ``name`` and a pod may request it."""
    return not extended_resource_name_problems(name)


def _domain_problems(domain: str) -> list[str]:
    if not domain:
        return ["domain prefix must not be empty"]
    problems: list[str] = []
    if len(domain) > _DOMAIN_MAX:
        problems.append(f"domain prefix must be at most {_DOMAIN_MAX} characters, got {len(domain)}")
    if not _DNS_SUBDOMAIN.fullmatch(domain):
        problems.append(
            "domain prefix must be a lowercase DNS subdomain: dot-separated labels of 'a-z', '0-9' "
            "and '-', each starting and ending with a letter or digit"
        )
    return problems


def _name_part_problems(part: str) -> list[str]:
    if not part:
        return ["name part after '/' must not be empty"]
    problems: list[str] = []
    if len(part) > _NAME_PART_MAX:
        problems.append(f"name part must be at most {_NAME_PART_MAX} characters, got {len(part)}")
    if not _NAME_PART.fullmatch(part):
        problems.append(
            "name part must consist of letters, digits, '-', '_' or '.', "
            "and start and end with a letter or digit"
        )
    return problems
