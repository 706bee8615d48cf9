"""Which origin is NuFi's own, and which browser requests come from it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.auth.web_origin import from_own_origin, is_loopback_host, origin_of, own_origin

OWN = "https://nufi.example.com"


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://NUFI.example.com/", OWN),
        ("https://nufi.example.com:443/x?y", OWN),
        ("http://127.0.0.1:8080/auth/logout", "http://127.0.0.1:8080"),
        ("http://[::1]:80", "http://[::1]"),
        ("null", None),
        ("javascript:alert(1)", None),
        ("https://nufi.example.com:99999", None),
        ("//nufi.example.com", None),
        ("", None),
    ],
)
def test_the_origin_of_a_url(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin


@given(st.text(max_size=80))
def test_any_origin_header_but_nufis_own_is_refused(header: str) -> None:
    allowed = from_own_origin({"origin": header}, OWN)
    assert allowed == (origin_of(header) == OWN)
    assert not from_own_origin({"origin": header}, None)


@pytest.mark.parametrize(
    ("headers", "allowed"),
    [
        ({"origin": OWN}, True),
        ({"origin": OWN + ":8443"}, False),
        ({"origin": "https://lab-1.nufi.example.com"}, False),
        ({"origin": "null", "sec-fetch-site": "same-origin"}, False),  # Origin wins
        ({"sec-fetch-site": "same-origin"}, True),
        ({"sec-fetch-site": "same-site"}, False),
        ({"sec-fetch-site": "cross-site", "referer": OWN + "/"}, False),
        ({"referer": OWN + "/admin"}, True),
        ({"referer": "https://evil.example/"}, False),
        ({}, True),  # no browser page started it (curl): it carries no one's cookie by itself
    ],
)
def test_what_browsers_say_decides(headers: dict[str, str], allowed: bool) -> None:
    assert from_own_origin(headers, OWN) is allowed


def test_the_own_origin_is_the_public_urls_else_a_loopback_hosts() -> None:
    assert own_origin(OWN + "/base", scheme="http", host_header="evil.example") == OWN
    assert own_origin(None, scheme="http", host_header="127.0.0.1:8080") == "http://127.0.0.1:8080"
    assert own_origin(None, scheme="http", host_header="localhost") == "http://localhost"
    assert own_origin(None, scheme="http", host_header="evil.example:8080") is None
    assert own_origin(None, scheme="http", host_header=None) is None


@given(st.text(max_size=60) | st.sampled_from(["127.0.0.1:8080", "LOCALHOST", "[::1]:1", "localhost/x"]))
def test_only_loopback_names_are_loopback(host: str) -> None:
    loopback = re.compile(r"(127\.0\.0\.1|localhost|\[::1\])(:[0-9]{1,5})?", re.IGNORECASE)
    expected = loopback.fullmatch(host) is not None
    assert is_loopback_host(host) is expected
