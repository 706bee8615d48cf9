"""Resource keys are held to Kubernetes' extended-resource name rules (interop-facts §1.7)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.models.resource_keys import (
    ResourceKeyRule,
    is_valid_resource_key,
    resource_key_problems,
    resource_key_violations,
)

LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
ALNUM = LOWER + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def kubernetes_accepts(name: str) -> bool:
    """Kubernetes' IsExtendedResourceName, transcribed step by step as the oracle."""
    if "/" not in name or "kubernetes.io/" in name:
        return False
    if name.startswith("requests."):
        return False
    parts = ("requests." + name).split("/")
    if len(parts) != 2:
        return False
    prefix, part = parts
    subdomain = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
    if not prefix or len(prefix) > 253 or re.fullmatch(subdomain, prefix) is None:
        return False
    qualified = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
    return 0 < len(part) <= 63 and re.fullmatch(qualified, part) is not None


def rules(key: str) -> set[ResourceKeyRule]:
    return {problem.rule for problem in resource_key_violations(key)}


dns_labels = st.builds(
    lambda first, middle, last: first + middle + last,
    st.sampled_from(LOWER),
    st.text(alphabet=LOWER + "-", max_size=61),
    st.sampled_from(LOWER),
) | st.sampled_from(LOWER)
domains = (
    st.lists(dns_labels, min_size=1, max_size=5)
    .map(".".join)
    .filter(
        lambda domain: (
            len(domain) <= 244 and domain != "kubernetes.io" and not domain.endswith(".kubernetes.io")
        )
    )
    .filter(lambda domain: not domain.startswith("requests."))
)
name_parts = st.builds(
    lambda first, middle, last: first + middle + last,
    st.sampled_from(ALNUM),
    st.text(alphabet=ALNUM + "-_.", max_size=61),
    st.sampled_from(ALNUM),
) | st.sampled_from(ALNUM)
valid_keys = st.builds(lambda domain, name: f"{domain}/{name}", domains, name_parts)


@pytest.mark.parametrize(
    "key",
    [
        "hyperaccel.ai/lpu",
        "nvidia.com/gpu",
        "nvidia.com/mig-1g.5gb",
        "furiosa.ai/rngd",
        "rebellions.ai/ATOM",
        "rebellions.ai/ATOM_MAX_PT",
        "a/b",
    ],
)
def test_real_vendor_keys_are_valid(key: str) -> None:
    assert resource_key_problems(key) == []
    assert is_valid_resource_key(key)


@given(valid_keys)
def test_keys_built_from_the_grammar_are_valid(key: str) -> None:
    assert resource_key_problems(key) == []
    assert kubernetes_accepts(key)


fragments = st.sampled_from(
    ["a", "Z", "9", "-", "_", ".", "/", "!", " ", "kubernetes.io", "requests.", "example.com", "x" * 60]
)


@given(st.lists(fragments, max_size=12).map("".join))
def test_validity_agrees_with_kubernetes(key: str) -> None:
    assert is_valid_resource_key(key) == kubernetes_accepts(key)


@given(st.text(max_size=40))
def test_any_text_gets_a_verdict_that_agrees_with_kubernetes(key: str) -> None:
    assert is_valid_resource_key(key) == kubernetes_accepts(key)


@given(st.sampled_from(["", "x."]), name_parts)
def test_kubernetes_io_domain_is_reserved(sub: str, name: str) -> None:
    key = f"{sub}kubernetes.io/{name}"
    assert ResourceKeyRule.RESERVED_DOMAIN in rules(key)
    assert any(
        "the 'kubernetes.io/' domain is reserved for Kubernetes" in m for m in resource_key_problems(key)
    )


@given(name_parts)
def test_a_key_without_domain_is_refused(name: str) -> None:
    assert rules(name) >= {ResourceKeyRule.MISSING_PREFIX}
    message = resource_key_problems(name)[-1]
    assert "must contain a domain prefix such as 'example.com/'" in message
    assert f"'example.com/{name}'" in message


@given(valid_keys)
def test_requests_prefix_is_refused(key: str) -> None:
    assert rules("requests." + key) == {ResourceKeyRule.QUOTA_PREFIX}
    assert "must not start with 'requests.'" in resource_key_problems("requests." + key)[0]


@given(valid_keys, name_parts)
def test_a_second_slash_is_refused(key: str, more: str) -> None:
    assert ResourceKeyRule.EXTRA_SLASH in rules(f"{key}/{more}")


@given(name_parts)
def test_an_empty_prefix_is_refused(name: str) -> None:
    assert rules("/" + name) == {ResourceKeyRule.PREFIX_EMPTY}


@given(domains, name_parts, st.sampled_from(["A", "_", "!", "é"]), st.data())
def test_a_prefix_that_is_no_lowercase_dns_subdomain_is_refused(
    domain: str, name: str, bad: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(domain)))
    prefix = domain[:at] + bad + domain[at:]
    found = resource_key_violations(f"{prefix}/{name}")
    assert [p.rule for p in found] == [ResourceKeyRule.PREFIX_SYNTAX]
    assert f"the prefix '{prefix}' must be a lowercase DNS subdomain" in found[0].message


@given(domains, name_parts, st.sampled_from(["-", "."]))
def test_a_prefix_must_start_and_end_with_alphanumerics(domain: str, name: str, edge: str) -> None:
    assert rules(f"{edge}{domain}/{name}") == {ResourceKeyRule.PREFIX_SYNTAX}
    assert rules(f"{domain}{edge}/{name}") == {ResourceKeyRule.PREFIX_SYNTAX}


@given(st.integers(245, 300), name_parts)
def test_a_prefix_longer_than_244_is_refused(length: int, name: str) -> None:
    # Kubernetes limits only the whole subdomain (253 with `requests.`), not each dot-separated part.
    prefix = "a" * length
    assert rules(f"{prefix}/{name}") == {ResourceKeyRule.PREFIX_TOO_LONG}
    assert not kubernetes_accepts(f"{prefix}/{name}")


def test_a_prefix_of_exactly_244_is_accepted() -> None:
    prefix = ".".join(["a" * 60] * 4) + "b"
    assert len(prefix) == 244
    assert is_valid_resource_key(f"{prefix}/x")
    assert not is_valid_resource_key(f"{prefix}c/x")


@given(domains)
def test_an_empty_name_is_refused(domain: str) -> None:
    assert rules(domain + "/") == {ResourceKeyRule.NAME_EMPTY}


@given(domains, st.text(alphabet=ALNUM, min_size=64, max_size=100))
def test_a_name_longer_than_63_is_refused(domain: str, name: str) -> None:
    found = resource_key_violations(f"{domain}/{name}")
    assert [p.rule for p in found] == [ResourceKeyRule.NAME_TOO_LONG]
    assert "the name part must be at most 63 characters" in found[0].message
    assert str(len(name)) in found[0].message


@given(domains, name_parts, st.sampled_from(["-", ".", "_", "!", " ", "é"]), st.booleans())
def test_a_name_with_bad_characters_or_edges_is_refused(
    domain: str, name: str, bad: str, front: bool
) -> None:
    part = bad + name if front else name + bad
    assert rules(f"{domain}/{part}") == {ResourceKeyRule.NAME_SYNTAX}


def test_an_empty_key_says_so() -> None:
    assert rules("") == {ResourceKeyRule.EMPTY}
    assert "empty" in resource_key_problems("")[0]


def test_every_broken_rule_is_reported_at_once() -> None:
    assert rules("requests.Bad_Domain/-x") == {
        ResourceKeyRule.QUOTA_PREFIX,
        ResourceKeyRule.PREFIX_SYNTAX,
        ResourceKeyRule.NAME_SYNTAX,
    }
