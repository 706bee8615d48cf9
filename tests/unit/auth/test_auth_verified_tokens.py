"""The cache of verified tokens: a token is checked once, then served until its exp, its key leaving
the issuer's JWKS, a revocation or eviction, and never stored in clear."""

from __future__ import annotations

import hashlib
import time
from typing import Any

import pytest
from jwt.algorithms import RSAAlgorithm

from nufi.auth import InvalidToken, JwksCache, Principal, TokenVerifier
from nufi.auth.verified_tokens import VerifiedTokens
from nufi.config import load_settings
from support.env import clear_nufi_env

from .auth_helpers import ISSUER, FakeClock, KeyPair, KeyServer, TokenFactory

ADA = Principal(subject="sub-ada", username="ada", roles=frozenset())


@pytest.fixture
def wall() -> FakeClock:
    """Epoch seconds for the verifier (expiry and its cache); `clock` drives the keys' age."""
    return FakeClock(now=float(int(time.time())))


@pytest.fixture
def signature_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per RS256 signature PyJWT checks: what the cache is there to save."""
    checks: list[int] = []
    real = RSAAlgorithm.verify

    def counting(self: RSAAlgorithm, msg: bytes, key: Any, sig: bytes) -> bool:
        checks.append(1)
        return real(self, msg, key, sig)

    monkeypatch.setattr(RSAAlgorithm, "verify", counting)
    return checks


def caching(key_server: KeyServer, clock: FakeClock, wall: FakeClock, **options: Any) -> TokenVerifier:
    keys = JwksCache(key_server, max_age=300, clock=clock)
    return TokenVerifier(issuer=ISSUER, keys=keys, clock=wall, **options)


async def test_a_verified_token_is_not_checked_again(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall)
    token = tokens.sign(exp=int(wall.now) + 300)
    first = await verifier.verify(token)
    assert [await verifier.verify(token) for _ in range(5)] == [first] * 5
    assert verifier.cached(token) == first
    assert len(signature_checks) == 1
    await verifier.verify(tokens.sign(exp=int(wall.now) + 300))  # another token is checked
    assert len(signature_checks) == 2


async def test_a_cached_token_expires_with_the_token_not_with_the_leeway(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall)
    exp = int(wall.now) + 120
    token = tokens.sign(exp=exp)
    await verifier.verify(token)
    wall.now = exp - 1
    assert verifier.cached(token) is not None
    assert (await verifier.verify(token)).username == "ada"
    assert len(signature_checks) == 1
    wall.now = exp
    assert verifier.cached(token) is None
    # Verification still grants its 30 s of leeway, checking the token in full each time ...
    assert (await verifier.verify(token)).username == "ada"
    assert (await verifier.verify(token)).username == "ada"
    assert len(signature_checks) == 3
    # ... and once past it, the token is refused as expired.
    wall.now = exp + 30
    with pytest.raises(InvalidToken) as refused:
        await verifier.verify(token)
    assert refused.value.code == "auth.token_expired_at"
    assert len(verifier.verified_tokens) == 0


async def test_a_cached_token_is_refused_once_its_key_leaves_the_jwks_after_max_age(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    rotated_key: KeyPair,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall)
    token = tokens.sign(exp=int(wall.now) + 3600)
    await verifier.verify(token)
    key_server.keys = [rotated_key.jwk()]  # the issuer withdraws sig-1
    clock.advance(300)
    assert verifier.cached(token) is None  # the keys are due for refetch: the fast path declines
    with pytest.raises(InvalidToken) as refused:
        await verifier.verify(token)
    assert refused.value.code == "auth.token_unknown_key"
    assert refused.value.params == {"kid": "sig-1", "issuer": ISSUER}
    assert key_server.calls == 2
    assert verifier.cached(token) is None
    assert len(verifier.verified_tokens) == 0
    assert len(signature_checks) == 1  # refused from the cache entry, not by a signature


async def test_a_cached_token_is_refused_once_a_refetch_shows_its_key_gone(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    rotated_key: KeyPair,
) -> None:
    verifier = caching(key_server, clock, wall)
    old = tokens.sign(exp=int(wall.now) + 3600)
    await verifier.verify(old)
    key_server.keys = [rotated_key.jwk()]
    clock.advance(11)  # past the back-off, well within max_age
    assert verifier.cached(old) is not None  # nothing has told this replica yet
    # A token under the new key makes the keys be fetched again, without sig-1.
    assert (await verifier.verify(tokens.sign(key=rotated_key, exp=int(wall.now) + 3600))).username == "ada"
    assert key_server.calls == 2
    assert verifier.cached(old) is None
    with pytest.raises(InvalidToken) as refused:
        await verifier.verify(old)
    assert refused.value.code == "auth.token_unknown_key"


async def test_cached_declines_while_the_keys_are_due_for_refetch_and_verify_refreshes_them(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall)
    token = tokens.sign(exp=int(wall.now) + 3600)
    principal = await verifier.verify(token)
    clock.advance(299)
    assert verifier.cached(token) == principal
    clock.advance(1)
    assert verifier.cached(token) is None
    assert key_server.calls == 1  # cached() never fetches
    assert await verifier.verify(token) == principal
    assert key_server.calls == 2
    assert verifier.cached(token) == principal
    assert len(signature_checks) == 1


async def test_no_keys_yet_means_cached_declines(key_server: KeyServer, clock: FakeClock) -> None:
    keys = JwksCache(key_server, clock=clock)
    assert not keys.current("sig-1")
    await keys.key("sig-1")
    assert keys.current("sig-1")
    assert not keys.current("made-up")


async def test_a_revoked_token_is_verified_in_full_again(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall)
    token, other = tokens.sign(exp=int(wall.now) + 300), tokens.sign(exp=int(wall.now) + 300)
    await verifier.verify(token)
    await verifier.verify(other)
    verifier.revoke(token)
    assert verifier.cached(token) is None
    assert verifier.cached(other) is not None  # only that token is forgotten
    await verifier.verify(token)
    assert len(signature_checks) == 3


async def test_the_cache_holds_digests_of_tokens_never_their_text(
    key_server: KeyServer, clock: FakeClock, wall: FakeClock, tokens: TokenFactory
) -> None:
    verifier = caching(key_server, clock, wall)
    sent = [tokens.sign(exp=int(wall.now) + 300) for _ in range(3)]
    for token in sent:
        await verifier.verify(token)
    assert set(verifier.verified_tokens.digests()) == {hashlib.sha256(t.encode()).digest() for t in sent}
    held = repr(vars(verifier.verified_tokens))
    for token in sent:
        assert all(part not in held for part in token.split("."))


def test_the_least_recently_used_token_is_evicted() -> None:
    cache = VerifiedTokens(2, clock=lambda: 1000.0)
    for token in ("a", "b"):
        assert cache.put(token, ADA, exp=2000, kid="k")
    assert cache.get("a") is not None  # "a" is now the more recently used
    assert cache.put("c", ADA, exp=2000, kid="k")
    assert len(cache) == 2
    assert cache.get("b") is None
    assert cache.get("a") is not None
    assert cache.get("c") is not None


@pytest.mark.parametrize("exp", [None, "2000", True, float("nan"), float("inf"), 10**400, 999, 1000])
def test_a_token_without_a_usable_future_exp_is_not_kept(exp: object) -> None:
    cache = VerifiedTokens(clock=lambda: 1000.0)
    assert not cache.put("t", ADA, exp=exp, kid="k")
    assert len(cache) == 0


def test_a_fractional_exp_is_held_to_its_whole_second() -> None:
    # Verification reads exp as int(exp), so the cache must not serve the fraction beyond it.
    now = [1000.0]
    cache = VerifiedTokens(clock=lambda: now[0])
    assert cache.put("t", ADA, exp=1100.9, kid="k")
    now[0] = 1100.0
    assert cache.get("t") is None


async def test_a_string_exp_is_verified_every_time(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall)
    token = tokens.sign(exp=str(int(wall.now) + 300))  # PyJWT accepts it; the cache does not trust it
    await verifier.verify(token)
    await verifier.verify(token)
    assert len(signature_checks) == 2
    assert verifier.cached(token) is None


async def test_a_refused_token_is_never_kept(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall, audience="nufi")
    token = tokens.sign(aud="account", exp=int(wall.now) + 300)
    for _ in range(2):
        with pytest.raises(InvalidToken) as refused:
            await verifier.verify(token)
        assert refused.value.code == "auth.audience_mismatch"
    assert len(signature_checks) == 2
    assert len(verifier.verified_tokens) == 0
    assert verifier.cached(token) is None


async def test_a_cache_of_size_zero_checks_every_token(
    key_server: KeyServer,
    clock: FakeClock,
    wall: FakeClock,
    tokens: TokenFactory,
    signature_checks: list[int],
) -> None:
    verifier = caching(key_server, clock, wall, cache_size=0)
    token = tokens.sign(exp=int(wall.now) + 300)
    await verifier.verify(token)
    await verifier.verify(token)
    assert len(signature_checks) == 2


async def test_the_cache_size_setting_reaches_the_verifier(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_nufi_env(monkeypatch)
    monkeypatch.setenv("NUFI_AUTH_TOKEN_CACHE_SIZE", "25")
    verifier = TokenVerifier.from_settings(load_settings(oidc_issuer=ISSUER))
    assert verifier is not None
    try:
        assert verifier.verified_tokens.max_entries == 25
    finally:
        await verifier.close()
    clear_nufi_env(monkeypatch)
    assert load_settings().auth_token_cache_size == 10_000
