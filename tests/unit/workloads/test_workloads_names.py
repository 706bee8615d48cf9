"""The names workloads accept: DNS-1123 labels, usernames, environment variable names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.errors import ValidationFailed
from nufi.workloads.names import check_env_name, check_name, check_username

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_ENV = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@given(st.from_regex(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", fullmatch=True))
def test_every_dns_label_is_accepted(name: str) -> None:
    assert check_name(name, field="name") == name


@given(st.text(max_size=80))
def test_a_name_is_accepted_exactly_when_it_is_a_dns_label(text: str) -> None:
    valid = 0 < len(text) <= 63 and _LABEL.fullmatch(text) is not None
    try:
        check_name(text, field="spec.name")
    except ValidationFailed as exc:
        assert not valid
        assert exc.field == "spec.name" and exc.status == 422
        assert "spec.name" in exc.detail
    else:
        assert valid


@pytest.mark.parametrize("name", ["", "A", "a_b", "-a", "a-", "a.b", "é", "a" * 64, "llama serve"])
def test_names_that_kubernetes_refuses_are_refused(name: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        check_name(name, field="name")
    assert caught.value.field == "name"


@given(st.text(max_size=300))
def test_a_username_has_no_spaces_and_at_most_255_characters(text: str) -> None:
    valid = 0 < len(text) <= 255 and all(ch.isprintable() and not ch.isspace() for ch in text)
    try:
        assert check_username(text, field="members.0") == text
    except ValidationFailed as exc:
        assert not valid and exc.field == "members.0"
    else:
        assert valid


@given(st.text(max_size=300))
def test_an_env_name_is_a_c_identifier(text: str) -> None:
    valid = 0 < len(text) <= 253 and _ENV.fullmatch(text) is not None
    try:
        check_env_name(text, field="env.0.name")
    except ValidationFailed as exc:
        assert not valid and exc.field == "env.0.name"
    else:
        assert valid
