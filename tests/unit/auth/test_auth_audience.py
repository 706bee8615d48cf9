"""The configured audience matches `aud` (string or list) or `azp`; unset means no audience check."""

from __future__ import annotations

from typing import Any

import pytest

from nufi.auth import audience_matches
from nufi.auth.audience import audience_mismatch
from nufi.messages import render


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        ({"aud": "nufi", "azp": "nufi-cli"}, True),
        ({"aud": ["account", "nufi"], "azp": "nufi-cli"}, True),
        ({"azp": "nufi"}, True),  # Keycloak without an audience mapper: no aud at all
        ({"aud": "account", "azp": "nufi"}, True),
        ({"aud": "account", "azp": "nufi-cli"}, False),
        ({"aud": ["account", "nufi-dashboard"], "azp": "nufi-cli"}, False),
        ({"azp": "nufi-cli"}, False),
        ({}, False),
        ({"aud": "nufi-api", "azp": "nufi-cli"}, False),  # a prefix is not a match
        ({"aud": [["nufi"]], "azp": 7}, False),
    ],
)
def test_audience_rules(claims: dict[str, Any], expected: bool) -> None:
    assert audience_matches(claims, "nufi") is expected


@pytest.mark.parametrize("claims", [{}, {"aud": "anything"}, {"aud": 12, "azp": None}])
def test_without_a_configured_audience_every_token_passes(claims: dict[str, Any]) -> None:
    assert audience_matches(claims, None)


def test_mismatch_detail_names_the_audience_and_what_the_token_carried() -> None:
    detail = render(
        "en", "auth.audience_mismatch", audience_mismatch({"aud": ["account"], "azp": "nufi-cli"}, "nufi")
    )
    assert "'nufi'" in detail
    assert "'account'" in detail
    assert "'nufi-cli'" in detail
    assert "aud (none)" in render("en", "auth.audience_mismatch", audience_mismatch({}, "nufi"))
    korean = render("ko", "auth.audience_mismatch", audience_mismatch({}, "nufi"))
    assert "aud(없음)" in korean and "azp(없음)" in korean and "none" not in korean
