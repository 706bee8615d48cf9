"""`services/{id}/proxy` ids split as the API server splits them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.wire.proxy_target import ServiceId, parse_service_id
from nufi_sandbox.devcluster.wire.service_proxy import _backend_target, _forwardable

dns = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
ports = st.one_of(st.integers(1, 65535).map(str), dns)


@given(dns, ports)
def test_name_and_port(name: str, port: str) -> None:
    assert parse_service_id(f"{name}:{port}") == ServiceId("http", name, port)
    assert parse_service_id(f"http:{name}:{port}") == ServiceId("http", name, port)
    assert parse_service_id(name) == ServiceId("http", name, "")


@pytest.mark.parametrize("text", ["", ":80", "ftp:web:80", "a:b:c:d", "http::80"])
def test_malformed_ids_are_bad_requests(text: str) -> None:
    with pytest.raises(errors.ApiError) as raised:
        parse_service_id(text)
    assert raised.value.code == 400


def test_https_is_refused_with_the_way_out() -> None:
    with pytest.raises(errors.ApiError) as raised:
        parse_service_id("https:web:443")
    assert raised.value.code == 400 and "http:web:443" in raised.value.message


@pytest.mark.parametrize(
    ("raw", "query", "target"),
    [
        (b"/api/v1/namespaces/a/services/web/proxy", b"", "/"),
        (b"/api/v1/namespaces/a/services/web:80/proxy/", b"", "/"),
        (b"/api/v1/namespaces/a/services/web/proxy/x/proxy/y", b"q=1&r", "/x/proxy/y?q=1&r"),
        (b"/api/v1/namespaces/proxy/services/proxy/proxy/a%2Fb", b"", "/a%2Fb"),
    ],
)
def test_the_backend_gets_what_follows_proxy(raw: bytes, query: bytes, target: str) -> None:
    assert _backend_target(raw, query) == target


def test_hop_by_hop_and_credentials_stay_behind() -> None:
    headers = [
        ("Connection", "keep-alive, X-Private"),
        ("X-Private", "1"),
        ("Authorization", "Bearer t"),
        ("Transfer-Encoding", "chunked"),
        ("Accept", "application/json"),
        ("Cookie", "a=b"),
    ]
    kept = _forwardable(headers, frozenset({"authorization"}))
    assert kept == [("Accept", "application/json"), ("Cookie", "a=b")]
