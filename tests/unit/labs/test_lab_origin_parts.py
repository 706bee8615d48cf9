"""The pure parts of "every lab on an origin of its own": host names, grants and lab cookies, and the
paths and headers the proxy refuses to pass on."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.datastructures import Headers

from nufi.api.labproxy.forward import request_headers
from nufi.api.labproxy.origin import has_dot_segment, next_for, own_origin
from nufi.auth.lab_grants import COOKIE_PURPOSE, GRANT_PURPOSE, GRANT_SECONDS, LabGrants, LabPass
from nufi.auth.web_sessions import session_hash
from nufi.auth.web_tokens import SealBroken, TokenCipher, TokenSet, fernet_for
from nufi.cluster.service_route import Upstream
from nufi.workloads.labs.origin import LabOrigins, lab_label, split_host

DNS_LABEL = re.compile(r"\A[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
names = st.from_regex(r"\A[a-z]([-a-z0-9]{0,50}[a-z0-9])?\Z")
SECRET = "a-secret-of-enough-length"
SESSION_ID = "a-dashboard-session-id"
SESSION = session_hash(SESSION_ID)


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_lab_is_named_readably_when_it_fits() -> None:
    assert lab_label("team-a", "notebook") == "notebook--team-a"
    origins = LabOrigins.from_settings("labs.example.com", "https://nufi.example.com")
    assert origins is not None
    assert origins.origin("team-a", "notebook") == "https://notebook--team-a.labs.example.com"
    local = LabOrigins.from_settings("localhost:8123", None)
    assert local is not None
    assert local.origin("p", "lab") == "http://lab--p.localhost:8123"
    assert LabOrigins.from_settings(None, "https://nufi.example.com") is None


@pytest.mark.parametrize(
    ("project", "name"), [("a--b", "c"), ("a", "b--c"), ("p" * 40, "n" * 30), ("x", "y" * 61)]
)
def test_a_lab_that_cannot_be_named_readably_gets_a_digest_label(project: str, name: str) -> None:
    label = lab_label(project, name)
    assert re.fullmatch(r"lab-[0-9a-f]{24}", label), label


@given(names, names, names, names)
def test_labels_are_dns_labels_and_two_labs_never_share_one(p1: str, n1: str, p2: str, n2: str) -> None:
    first, second = lab_label(p1, n1), lab_label(p2, n2)
    assert DNS_LABEL.match(first) and DNS_LABEL.match(second)
    assert (first == second) == ((p1, n1) == (p2, n2))


def test_a_host_is_the_lab_s_only_when_it_is_exactly_its_label_under_the_base() -> None:
    origins = LabOrigins.from_settings("localhost:8123", None)
    assert origins is not None
    assert origins.serves("lab--p.localhost:8123", "p", "lab")
    assert origins.serves("LAB--P.localhost.", "p", "lab")
    assert not origins.serves("lab--q.localhost:8123", "p", "lab")
    assert not origins.serves("x.lab--p.localhost:8123", "p", "lab")
    assert not origins.serves("127.0.0.1:8123", "p", "lab")
    assert origins.under("x.y.localhost") and origins.under("lab--p.localhost:1")
    assert not origins.under("localhost:8123") and not origins.under("127.0.0.1:8123")
    assert not origins.under("evil-localhost") and not origins.under("localhost.evil.example")
    assert split_host("[::1]:80") == ("[::1]:80", None)


def test_a_grant_opens_once_for_its_lab_and_session_in_the_browser_that_asked() -> None:
    grants = LabGrants(SECRET, cookie_seconds=3600)
    lab = LabPass("p", "lab", SESSION)
    sealed = grants.grant(lab, state="browser-state")
    assert SESSION not in sealed and "browser-state" not in sealed
    for other in ("", "another-browser"):
        with pytest.raises(SealBroken, match="another browser"):
            grants.redeem(sealed, state=other)
    assert grants.redeem(sealed, state="browser-state") == lab
    with pytest.raises(SealBroken, match="used already"):
        grants.redeem(sealed, state="browser-state")


def test_grants_and_lab_cookies_hold_the_sessions_hash_never_its_id() -> None:
    # Opened with the keys they are sealed under, as whoever holds the dashboard's secret could: what
    # they name is the session row's key, which signs no browser in to the dashboard.
    grants = LabGrants(SECRET, cookie_seconds=3600)
    lab = LabPass("p", "lab", SESSION)
    for purpose, sealed in (
        (GRANT_PURPOSE, grants.grant(lab, state="browser-state")),
        (COOKIE_PURPOSE, grants.cookie(lab)),
    ):
        payload = json.loads(fernet_for(SECRET, purpose).decrypt(sealed.encode()))
        assert payload["session_hash"] == SESSION
        assert SESSION_ID not in json.dumps(payload)
        assert "session" not in payload
    assert grants.open_cookie(grants.cookie(lab)) == lab


def test_a_lab_pass_naming_a_session_by_anything_but_a_hash_opens_nothing() -> None:
    grants = LabGrants(SECRET, cookie_seconds=3600)
    for named in (SESSION_ID, SESSION.upper(), SESSION[:-1], ""):
        with pytest.raises(SealBroken):
            grants.open_cookie(grants.cookie(LabPass("p", "lab", named)))


def test_a_grant_expires() -> None:
    clock = Clock()
    grants = LabGrants(SECRET, cookie_seconds=3600, clock=clock)
    sealed = grants.grant(LabPass("p", "lab", SESSION), state="st")
    clock.now += GRANT_SECONDS + 1
    with pytest.raises(SealBroken):
        grants.redeem(sealed, state="st")


def test_a_return_address_opens_only_as_sealed() -> None:
    grants = LabGrants(SECRET, cookie_seconds=3600)
    assert grants.open_return(grants.seal_return("http://127.0.0.1:8123")) == "http://127.0.0.1:8123"
    for forged in ("https://evil.example", "", grants.cookie(LabPass("p", "lab", SESSION))):
        with pytest.raises(SealBroken):
            grants.open_return(forged)


def test_grants_cookies_and_dashboard_tokens_never_open_as_one_another() -> None:
    grants = LabGrants(SECRET, cookie_seconds=3600)
    lab = LabPass("p", "lab", SESSION)
    with pytest.raises(SealBroken):
        grants.redeem(grants.cookie(lab), state="st")
    with pytest.raises(SealBroken):
        grants.open_cookie(grants.grant(lab, state="st"))
    with pytest.raises(SealBroken):
        LabGrants("another-secret-of-length", cookie_seconds=3600).open_cookie(grants.cookie(lab))
    tokens = TokenCipher(SECRET).seal(TokenSet("t", 0.0), session="s")
    with pytest.raises(SealBroken):
        grants.open_cookie(tokens)
    sealed = grants.cookie(lab)
    with pytest.raises(SealBroken):
        grants.open_cookie(sealed[:-4] + ("AAAA" if not sealed.endswith("AAAA") else "BBBB"))


def test_a_lab_cookie_outlives_no_dashboard_session() -> None:
    clock = Clock()
    grants = LabGrants(SECRET, cookie_seconds=600, clock=clock)
    sealed = grants.cookie(LabPass("p", "lab", SESSION))
    clock.now += 599
    assert grants.open_cookie(sealed).session_hash == SESSION
    clock.now += 2
    with pytest.raises(SealBroken):
        grants.open_cookie(sealed)


def test_the_sign_in_sends_only_to_its_own_lab() -> None:
    lab = LabPass("p", "lab", SESSION)
    assert next_for(lab, "/labs/p/lab/tree?x=1") == "/labs/p/lab/tree?x=1"
    assert next_for(lab, "/notebook/p/lab/api") == "/notebook/p/lab/api"
    for elsewhere in (
        "/labs/p/other/tree",
        "//evil.example/",
        "https://evil.example",
        "/api/v1/projects",
        "",
    ):
        assert next_for(lab, elsewhere) == "/labs/p/lab/"


def test_an_origin_must_be_exactly_the_lab_s() -> None:
    own = "http://lab--p.localhost:8123"
    assert own_origin(Headers({"origin": own}), own)
    for other in (
        "http://lab--q.localhost:8123",
        "http://lab--p.localhost:8124",
        "null",
        "https://lab--p.localhost:8123",
    ):
        assert not own_origin(Headers({"origin": other}), own)
    assert not own_origin(Headers({}), own)


@pytest.mark.parametrize(
    "path",
    [
        "/labs/p/lab/..",
        "/labs/p/lab/../../api/v1",
        "/labs/p/lab/./tree",
        "/labs/p/lab/%2e%2e/x",
        "/labs/p/lab/%2E%2e/x",
        "/labs/p/lab/.%2e/x",
        "/labs/p/lab/a%2f..%2f..%2fx",
        "/labs/p/lab/a%5c..%5cx",
        "/labs/p/lab/%252e%252e/x",
        "/labs/p/lab/a\\..\\x",
    ],
)
def test_dot_segments_in_any_encoding_are_found(path: str) -> None:
    assert has_dot_segment(path)


@given(st.lists(st.from_regex(r"\A[A-Za-z0-9_ %-]{1,12}\Z").filter(lambda s: s.strip(". ")), max_size=6))
def test_ordinary_paths_have_no_dot_segment(parts: list[str]) -> None:
    path = "/labs/p/lab/" + "/".join(part.replace("%", "%25") for part in parts)
    assert not has_dot_segment(path)
    assert not has_dot_segment("/labs/p/lab/.hidden/file.ipynb")


def test_impersonation_and_hop_by_hop_headers_never_reach_a_lab() -> None:
    raw = [
        (b"impersonate-user", b"system:admin"),
        (b"Impersonate-Group", b"system:masters"),
        (b"impersonate-uid", b"0"),
        (b"impersonate-extra-scopes", b"all"),
        (b"connection", b"x-private, keep-alive"),
        (b"x-private", b"1"),
        (b"keep-alive", b"timeout=5"),
        (b"te", b"trailers"),
        (b"upgrade", b"h2c"),
        (b"proxy-authorization", b"Basic eA=="),
        (b"cookie", b"nufi_session=s; nufi_lab=l; __Host-nufi_lab=h; _xsrf=x"),
        (b"x-kept", b"yes"),
    ]
    scope = {"type": "http", "headers": raw, "scheme": "http", "client": ("127.0.0.1", 1)}
    sent = request_headers(scope, Upstream(base_url="http://lab"))
    names = {name.lower() for name in sent}
    assert not {n for n in names if n.startswith("impersonate-")}
    assert not names & {"connection", "x-private", "keep-alive", "te", "upgrade", "proxy-authorization"}
    assert sent["cookie"] == "_xsrf=x"
    assert sent["x-kept"] == "yes"
