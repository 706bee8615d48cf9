"""Extended resource names: the rules the kubelet applies when a device plugin registers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.kubelet.resource_name import (
    extended_resource_name_problems,
    is_extended_resource_name,
)

_ALNUM_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_ALNUM = _ALNUM_LOWER + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

dns_labels = st.builds(
    lambda first, middle, last: first + middle + last if middle or last else first,
    st.sampled_from(_ALNUM_LOWER),
    st.text(alphabet=_ALNUM_LOWER + "-", max_size=10),
    st.sampled_from(_ALNUM_LOWER) | st.just(""),
).filter(lambda label: not label.endswith("-"))
domains = (
    st.lists(dns_labels, min_size=1, max_size=4)
    .map(".".join)
    .filter(lambda domain: "kubernetes.io" not in domain and not domain.startswith("requests."))
)
name_parts = st.builds(
    lambda first, middle, last: first + middle + last,
    st.sampled_from(_ALNUM),
    st.text(alphabet=_ALNUM + "-_.", max_size=40),
    st.sampled_from(_ALNUM),
) | st.sampled_from(_ALNUM)
valid_names = st.builds(lambda domain, part: f"{domain}/{part}", domains, name_parts)


@pytest.mark.parametrize(
    "name",
    [
        "nvidia.com/gpu",
        "nvidia.com/mig-1g.5gb",
        "nvidia.com/gpu.shared",
        "furiosa.ai/rngd",
        "rebellions.ai/ATOM",
        "rebellions.ai/ATOM_MAX_PT",
        "example.com/foo",
        "a/b",
    ],
)
def test_real_vendor_names_are_extended(name: str) -> None:
    assert is_extended_resource_name(name)
    assert extended_resource_name_problems(name) == []


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("gpu", "domain prefix followed by '/'"),
        ("", "domain prefix followed by '/'"),
        ("kubernetes.io/gpu", "kubernetes.io domain"),
        ("foo.kubernetes.io/gpu", "kubernetes.io domain"),
        ("requests.example.com/gpu", "must not start with 'requests.'"),
        ("example.com/a/b", "exactly one '/'"),
        ("/gpu", "domain prefix must not be empty"),
        ("Example.com/gpu", "lowercase DNS subdomain"),
        ("example_com/gpu", "lowercase DNS subdomain"),
        ("-example.com/gpu", "lowercase DNS subdomain"),
        ("example..com/gpu", "lowercase DNS subdomain"),
        ("example.com/", "name part after '/' must not be empty"),
        ("example.com/-gpu", "start and end with a letter or digit"),
        ("example.com/gpu_", "start and end with a letter or digit"),
        ("example.com/g pu", "letters, digits, '-', '_' or '.'"),
        ("example.com/" + "g" * 64, "at most 63 characters, got 64"),
        ("a" * 245 + "/gpu", "at most 244 characters, got 245"),
    ],
)
def test_each_broken_rule_is_named(name: str, rule: str) -> None:
    problems = extended_resource_name_problems(name)
    assert not is_extended_resource_name(name)
    assert any(rule in problem for problem in problems), problems


def test_name_part_limit_and_domain_limit_are_inclusive() -> None:
    assert is_extended_resource_name("example.com/" + "g" * 63)
    assert is_extended_resource_name("a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 52 + "/x")


def test_several_broken_rules_are_all_reported() -> None:
    problems = extended_resource_name_problems("Requests.Bad_Domain/-x-")
    assert len(problems) == 2
    assert any("DNS subdomain" in problem for problem in problems)
    assert any("name part" in problem for problem in problems)


def test_trailing_newline_is_not_accepted() -> None:
    # Python's `$` would match before a final newline; Go's regexps do not.
    assert not is_extended_resource_name("example.com/gpu\n")


@given(valid_names)
def test_generated_valid_names_are_extended(name: str) -> None:
    assert extended_resource_name_problems(name) == []


@given(valid_names, st.sampled_from(["kubernetes.io/", "requests."]))
def test_native_domain_or_quota_prefix_is_never_extended(name: str, poison: str) -> None:
    assert not is_extended_resource_name(poison + name.split("/", 1)[1])
    assert not is_extended_resource_name(poison + name)


@given(st.text(max_size=80))
def test_verdict_matches_problem_list(name: str) -> None:
    problems = extended_resource_name_problems(name)
    assert is_extended_resource_name(name) is (problems == [])
    assert all(isinstance(problem, str) and problem for problem in problems)


@given(domains, name_parts, st.sampled_from("ABCXYZ_"))
def test_uppercase_or_underscore_in_domain_is_rejected(domain: str, part: str, bad: str) -> None:
    assert not is_extended_resource_name(f"{bad}{domain}/{part}")
