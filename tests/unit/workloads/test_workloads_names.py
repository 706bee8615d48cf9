"""The names workloads accept: DNS-1123 labels, usernames, environment variable names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.errors import ValidationFailed
from nufi.workloads.names import check_env_name, check_name, check_stored_username, check_username

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


_USERNAME = re.compile(r"[a-z0-9._@-]{1,255}")


@given(st.from_regex(r"[a-z0-9._@-]{1,255}", fullmatch=True))
def test_every_keycloak_username_is_accepted(name: str) -> None:
    assert check_username(name, field="members.0") == name


@given(st.text(max_size=300))
def test_a_username_is_lower_case_ascii_from_keycloaks_characters(text: str) -> None:
    valid = _USERNAME.fullmatch(text) is not None
    try:
        assert check_username(text, field="members.0") == text
    except ValidationFailed as exc:
        assert not valid and exc.field == "members.0" and exc.status == 422
        assert "members.0" in exc.detail
    else:
        assert valid


@given(st.from_regex(r"[a-z0-9._@-]{0,20}[A-Z][a-zA-Z0-9._@-]{0,20}", fullmatch=True))
def test_a_username_with_capitals_is_refused_naming_its_lower_case_form(name: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        check_username(name, field="username")
    assert "lower-case" in caught.value.detail
    assert repr(name.lower()) in caught.value.detail


# Cyrillic a, e, o, p (U+0430, U+0435, U+043E, U+0440), Greek omicron, a full-width a, a dotless i.
@pytest.mark.parametrize(
    "name",
    [
        "USER",
        "User",
        "\u0430dmin",
        "us\u0435r",
        "\u0440oot",
        "\u03bf",
        "\uff41lice",
        "\u0131van",
        "kim jiwoo",
        "a/b",
    ],
)
def test_look_alikes_and_capitals_are_refused(name: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        check_username(name, field="username")
    assert caught.value.field == "username"


@pytest.mark.parametrize("name", ["user", "kim.jiwoo", "ops_team-2", "alice@example.com", "a" * 255])
def test_usual_usernames_are_accepted(name: str) -> None:
    assert check_username(name, field="username") == name


@given(st.text(min_size=1, max_size=255))
def test_a_stored_username_of_any_text_can_still_be_named_for_removal(text: str) -> None:
    assert check_stored_username(text, field="username") == text


@given(st.text(max_size=300))
def test_an_env_name_is_a_c_identifier(text: str) -> None:
    valid = 0 < len(text) <= 253 and _ENV.fullmatch(text) is not None
    try:
        check_env_name(text, field="env.0.name")
    except ValidationFailed as exc:
        assert not valid and exc.field == "env.0.name"
    else:
        assert valid
