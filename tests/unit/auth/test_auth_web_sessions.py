"""Dashboard sessions without I/O: sealing tokens and logins, and which `next` paths are kept."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.auth.web_login import FALLBACK_NEXT, LoginSealer, PendingLogin, safe_next
from nufi.auth.web_sessions import session_hash
from nufi.auth.web_tokens import SealBroken, TokenCipher, TokenSet

SECRET = "a-secret-of-sixteen-or-more"
TOKENS = TokenSet(
    access_token="eyJ.access", access_expires_at=1_700_000_000.0, refresh_token="r", id_token="i"
)


def test_tokens_round_trip_and_are_not_readable() -> None:
    cipher = TokenCipher(SECRET)
    sealed = cipher.seal(TOKENS, session="s1")
    assert TOKENS.access_token not in sealed and "access" not in sealed
    assert cipher.open(sealed, session="s1") == TOKENS


def test_sealing_twice_gives_different_text() -> None:
    cipher = TokenCipher(SECRET)
    assert cipher.seal(TOKENS, session="s1") != cipher.seal(TOKENS, session="s1")


def test_tokens_do_not_open_under_another_secret() -> None:
    sealed = TokenCipher(SECRET).seal(TOKENS, session="s1")
    with pytest.raises(SealBroken):
        TokenCipher(SECRET + "!").open(sealed, session="s1")


def test_tokens_copied_into_another_session_do_not_open() -> None:
    cipher = TokenCipher(SECRET)
    with pytest.raises(SealBroken, match="another session"):
        cipher.open(cipher.seal(TOKENS, session="s1"), session="s2")


@given(st.integers(min_value=0, max_value=200))
def test_altered_tokens_do_not_open(position: int) -> None:
    cipher = TokenCipher(SECRET)
    sealed = cipher.seal(TOKENS, session="s1")
    index = position % len(sealed)
    altered = sealed[:index] + ("A" if sealed[index] != "A" else "B") + sealed[index + 1 :]
    with pytest.raises(SealBroken):
        cipher.open(altered, session="s1")


def test_a_sealed_login_is_not_a_sealed_token_set() -> None:
    # Keys are derived per purpose: one kind of sealed value never opens as the other.
    login = PendingLogin.start(redirect_uri="http://127.0.0.1/auth/callback", next_path="/x")
    sealed_login = LoginSealer(SECRET).seal(login)
    with pytest.raises(SealBroken):
        TokenCipher(SECRET).open(sealed_login, session="s1")
    with pytest.raises(SealBroken):
        LoginSealer(SECRET).open(TokenCipher(SECRET).seal(TOKENS, session="s1"))


def test_a_login_round_trips_and_keeps_its_secrets_hidden() -> None:
    login = PendingLogin.start(redirect_uri="http://127.0.0.1/auth/callback", next_path="/monitoring")
    sealed = LoginSealer(SECRET).seal(login)
    assert login.code_verifier not in sealed and login.nonce not in sealed
    assert LoginSealer(SECRET).open(sealed) == login
    assert 43 <= len(login.code_verifier) <= 128
    assert login.code_challenge != login.code_verifier


def test_an_old_login_does_not_open(monkeypatch: pytest.MonkeyPatch) -> None:
    sealed = LoginSealer(SECRET, max_age_seconds=60).seal(
        PendingLogin.start(redirect_uri="http://127.0.0.1/auth/callback", next_path="/")
    )
    later = time.time() + 61
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(SealBroken):
        LoginSealer(SECRET, max_age_seconds=60).open(sealed)


def test_a_login_sanitises_its_next_path() -> None:
    login = PendingLogin.start(redirect_uri="http://127.0.0.1/auth/callback", next_path="//evil.example")
    assert login.next_path == FALLBACK_NEXT


def test_session_hash_is_sha256_hex() -> None:
    assert session_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.parametrize(
    "path",
    ["/", "/monitoring", "/monitoring?type=nvidia-gpu&page=2", "/devices/nvidia-gpu#top", "/a/%2F%2Fb"],
)
def test_paths_on_this_site_are_kept(path: str) -> None:
    assert safe_next(path) == path


@pytest.mark.parametrize(
    "candidate",
    [
        None,
        "",
        "monitoring",
        "https://evil.example/",
        "http:/evil.example",
        "//evil.example/",
        "/\\evil.example",
        "\\\\evil.example",
        "/\t/evil.example",
        " /monitoring",
        "javascript:alert(1)",
        "/auth/login?next=/",
        "/auth/logout",
        "/auth",
        "/caf\u00e9",
        "/" + "a" * 3000,
        ["/monitoring"],
    ],
)
def test_anything_else_falls_back_to_the_root(candidate: object) -> None:
    assert safe_next(candidate) == FALLBACK_NEXT


@given(st.text())
def test_whatever_comes_in_a_relative_path_goes_out(candidate: str) -> None:
    result = safe_next(candidate)
    parts = urlsplit(result)
    assert result in (candidate, FALLBACK_NEXT)
    assert result.startswith("/") and not result.startswith("//")
    assert not parts.scheme and not parts.netloc
    assert "\\" not in result and all("!" <= ch <= "~" for ch in result)


@given(st.sampled_from(["http", "https", "javascript", "data", "HTTPS"]), st.text(max_size=40))
def test_absolute_urls_never_pass(scheme: str, rest: str) -> None:
    assert safe_next(f"{scheme}:{rest}") == FALLBACK_NEXT
    assert safe_next(f"//{rest}") == FALLBACK_NEXT
