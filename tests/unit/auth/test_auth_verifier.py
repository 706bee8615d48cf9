"""Token verification against an in-test RSA key and an in-memory JWKS."""

from __future__ import annotations

import asyncio
import base64
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from nufi.auth import InvalidToken, JwksCache, TokenVerifier
from nufi.auth.errors import IdentityProviderUnavailable
from nufi.config import load_settings
from support.env import clear_nufi_env

from .auth_helpers import ISSUER, FakeClock, KeyPair, KeyServer, TokenFactory, new_key


def _b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def test_a_valid_keycloak_token_gives_its_principal(
    verifier: TokenVerifier, tokens: TokenFactory
) -> None:
    principal = await verifier.verify(tokens.sign())
    assert principal.username == "ada"
    assert principal.is_admin
    assert "offline_access" in principal.roles
    assert "view-profile" not in principal.roles  # the account client's, not NuFi's
    assert principal.client_roles["account"] == {"view-profile"}


async def test_an_expired_token_is_refused_as_expired(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    now = int(time.time())
    with pytest.raises(InvalidToken, match="token expired at"):
        await verifier.verify(tokens.sign(iat=now - 400, exp=now - 60))


async def test_clock_skew_within_the_leeway_is_tolerated(
    verifier: TokenVerifier, tokens: TokenFactory
) -> None:
    now = int(time.time())
    assert (await verifier.verify(tokens.sign(exp=now - 10))).username == "ada"
    assert (await verifier.verify(tokens.sign(nbf=now + 10))).username == "ada"


async def test_a_token_not_yet_valid_is_refused(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    with pytest.raises(InvalidToken, match="not yet valid"):
        await verifier.verify(tokens.sign(nbf=int(time.time()) + 120))


async def test_alg_none_is_refused(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    unsigned = f"{_b64({'alg': 'none', 'typ': 'JWT', 'kid': 'sig-1'})}.{_b64(tokens.claims())}."
    with pytest.raises(InvalidToken, match="'none' is not accepted"):
        await verifier.verify(unsigned)


async def test_hmac_signed_with_the_public_key_is_refused(
    verifier: TokenVerifier, tokens: TokenFactory, signing_key: KeyPair
) -> None:
    # The classic algorithm confusion: HS256 keyed with the issuer's public key, which anyone has.
    public_pem = signing_key.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    forged = _hs256(tokens.claims(), public_pem, kid="sig-1")
    with pytest.raises(InvalidToken, match="'HS256' is not accepted"):
        await verifier.verify(forged)


def _hs256(claims: dict[str, object], secret: bytes, kid: str) -> str:
    import hashlib
    import hmac

    signing_input = f"{_b64({'alg': 'HS256', 'typ': 'JWT', 'kid': kid})}.{_b64(claims)}"
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()


async def test_a_tampered_payload_fails_the_signature(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    header, _, signature = tokens.sign(realm_access={"roles": ["viewer"]}).split(".")
    escalated = _b64(tokens.claims(realm_access={"roles": ["nufi-admin"]}))
    with pytest.raises(InvalidToken, match="signature is invalid"):
        await verifier.verify(f"{header}.{escalated}.{signature}")


async def test_a_tampered_signature_is_refused(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    header, payload, signature = tokens.sign().split(".")
    flipped = ("A" if signature[10] != "A" else "B").join([signature[:10], signature[11:]])
    with pytest.raises(InvalidToken, match="signature is invalid"):
        await verifier.verify(f"{header}.{payload}.{flipped}")


async def test_a_foreign_issuer_is_named_and_no_keys_are_fetched(
    verifier: TokenVerifier, tokens: TokenFactory, key_server: KeyServer
) -> None:
    other = "https://keycloak.test/realms/other"
    with pytest.raises(InvalidToken) as refused:
        await verifier.verify(tokens.sign(iss=other))
    assert refused.value.detail == f"issuer mismatch: expected {ISSUER!r}, got {other!r}"
    assert key_server.calls == 0


async def test_an_issuer_differing_only_by_a_trailing_slash_is_refused(
    verifier: TokenVerifier, tokens: TokenFactory
) -> None:
    with pytest.raises(InvalidToken, match="issuer mismatch"):
        await verifier.verify(tokens.sign(iss=ISSUER + "/"))


async def test_a_key_the_issuer_does_not_publish_is_unknown(
    verifier: TokenVerifier, tokens: TokenFactory
) -> None:
    stranger = new_key("made-up")
    with pytest.raises(InvalidToken, match="token signed by an unknown key \\(kid 'made-up'\\)"):
        await verifier.verify(tokens.sign(key=stranger))


async def test_the_encryption_key_is_never_used_to_verify(
    verifier: TokenVerifier, tokens: TokenFactory, encryption_key: KeyPair
) -> None:
    with pytest.raises(InvalidToken, match="unknown key \\(kid 'enc-1'\\)"):
        await verifier.verify(tokens.sign(key=encryption_key))


async def test_a_token_without_kid_is_refused(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    token = jwt.encode(tokens.claims(), tokens.key.private, algorithm="RS256")
    with pytest.raises(InvalidToken, match="kid"):
        await verifier.verify(token)


async def test_a_token_without_exp_is_refused(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    with pytest.raises(InvalidToken, match="lacks the required 'exp' claim"):
        await verifier.verify(tokens.sign(exp=None))


@pytest.mark.parametrize("typ", ["ID", "Refresh", "Offline", 3])
async def test_id_and_refresh_tokens_are_not_access_tokens(
    verifier: TokenVerifier, tokens: TokenFactory, typ: object
) -> None:
    with pytest.raises(InvalidToken, match="not an access token"):
        await verifier.verify(tokens.sign(typ=typ))


async def test_a_token_without_typ_is_accepted(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    assert (await verifier.verify(tokens.sign(typ=None))).username == "ada"


async def test_a_token_naming_no_user_is_refused(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    with pytest.raises(InvalidToken, match="names no user"):
        await verifier.verify(tokens.sign(sub=None, preferred_username=None))


@pytest.mark.parametrize(
    ("aud", "azp", "accepted"),
    [
        ("nufi", "nufi-cli", True),
        (["account", "nufi"], "nufi-cli", True),
        (None, "nufi", True),
        ("account", "nufi-cli", False),
        (None, "nufi-cli", False),
    ],
)
async def test_the_configured_audience_is_enforced(
    key_server: KeyServer, tokens: TokenFactory, aud: object, azp: str, accepted: bool
) -> None:
    verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server), audience="nufi")
    token = tokens.sign(aud=aud, azp=azp)
    if accepted:
        assert (await verifier.verify(token)).username == "ada"
    else:
        with pytest.raises(InvalidToken, match="not meant for NuFi"):
            await verifier.verify(token)


async def test_the_admin_role_setting_reaches_the_principal(
    key_server: KeyServer, tokens: TokenFactory
) -> None:
    verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server), admin_role="platform-admin")
    principal = await verifier.verify(tokens.sign())
    assert "nufi-admin" in principal.roles
    assert not principal.is_admin


async def test_keys_are_fetched_once_and_cached(
    verifier: TokenVerifier, tokens: TokenFactory, key_server: KeyServer
) -> None:
    for _ in range(5):
        await verifier.verify(tokens.sign())
    assert key_server.calls == 1


async def test_a_rotated_key_is_picked_up_on_its_first_token(
    verifier: TokenVerifier,
    tokens: TokenFactory,
    key_server: KeyServer,
    rotated_key: KeyPair,
    clock: FakeClock,
) -> None:
    await verifier.verify(tokens.sign())
    key_server.keys.append(rotated_key.jwk())
    clock.advance(11)
    principal = await verifier.verify(tokens.sign(key=rotated_key))
    assert principal.username == "ada"
    assert key_server.calls == 2


async def test_refetching_for_unknown_kids_is_rate_limited(
    verifier: TokenVerifier,
    tokens: TokenFactory,
    key_server: KeyServer,
    rotated_key: KeyPair,
    clock: FakeClock,
) -> None:
    stranger = new_key("junk")
    await verifier.verify(tokens.sign())
    clock.advance(11)
    for _ in range(10):
        with pytest.raises(InvalidToken, match="unknown key"):
            await verifier.verify(tokens.sign(key=stranger))
        clock.advance(0.5)
    assert key_server.calls == 2  # the first load plus one refetch in those five seconds
    key_server.keys.append(rotated_key.jwk())
    with pytest.raises(InvalidToken, match="unknown key"):
        await verifier.verify(tokens.sign(key=rotated_key))  # still inside the 10 s window
    clock.advance(10)
    assert (await verifier.verify(tokens.sign(key=rotated_key))).username == "ada"
    assert key_server.calls == 3


async def test_unknown_kids_while_the_issuer_is_down_are_401s_and_cost_one_fetch_per_interval(
    verifier: TokenVerifier, tokens: TokenFactory, key_server: KeyServer, clock: FakeClock
) -> None:
    await verifier.verify(tokens.sign())
    key_server.failure = IdentityProviderUnavailable(
        code="idp.timed_out", params={"issuer": "https://idp", "seconds": 5}
    )
    clock.advance(11)
    strangers = [tokens.sign(key=new_key(f"junk-{n}")) for n in range(50)]
    for _ in range(20):
        results = await asyncio.gather(*(verifier.verify(t) for t in strangers), return_exceptions=True)
        assert all(isinstance(r, InvalidToken) and r.status == 401 for r in results), results[:3]
        # Tokens signed by a cached key keep working all along.
        assert (await verifier.verify(tokens.sign())).username == "ada"
        clock.advance(1)
    # 20 s of a thousand such tokens: the first load plus one attempt per 10 s interval.
    assert key_server.calls == 3


async def test_concurrent_requests_share_one_fetch(
    verifier: TokenVerifier, tokens: TokenFactory, key_server: KeyServer
) -> None:
    token = tokens.sign()
    principals = await asyncio.gather(*(verifier.verify(token) for _ in range(20)))
    assert {p.username for p in principals} == {"ada"}
    assert key_server.calls == 1


async def test_an_unreachable_issuer_is_a_503_not_a_401(
    verifier: TokenVerifier, tokens: TokenFactory, key_server: KeyServer, clock: FakeClock
) -> None:
    key_server.failure = IdentityProviderUnavailable(
        code="idp.timed_out", params={"issuer": "https://idp", "seconds": 5}
    )
    results = await asyncio.gather(
        *(verifier.verify(tokens.sign()) for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(r, IdentityProviderUnavailable) and r.status == 503 for r in results)
    assert key_server.calls == 1  # the waiting requests share the failure instead of queueing fetches
    key_server.failure = None
    clock.advance(11)  # past the back-off that follows a failed fetch
    assert (await verifier.verify(tokens.sign())).username == "ada"


async def test_old_keys_are_refreshed_and_kept_if_the_refresh_fails(
    tokens: TokenFactory, key_server: KeyServer, clock: FakeClock, signing_key: KeyPair
) -> None:
    verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server, max_age=300, clock=clock))
    await verifier.verify(tokens.sign())
    clock.advance(301)
    key_server.failure = IdentityProviderUnavailable(
        code="idp.timed_out", params={"issuer": "https://idp", "seconds": 5}
    )
    assert (await verifier.verify(tokens.sign())).username == "ada"
    assert key_server.calls == 2
    # Once the issuer answers again, a key it withdrew stops being accepted.
    key_server.failure = None
    key_server.keys = [new_key("sig-3").jwk()]
    clock.advance(301)
    with pytest.raises(InvalidToken, match="unknown key \\(kid 'sig-1'\\)"):
        await verifier.verify(tokens.sign())


async def test_a_jwks_without_keys_list_is_a_503(tokens: TokenFactory) -> None:
    async def broken() -> dict[str, object]:
        return {"error": "not a jwks"}

    verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(broken))
    with pytest.raises(IdentityProviderUnavailable, match="no 'keys' list"):
        await verifier.verify(tokens.sign())


async def test_client_roles_count_from_the_role_client_only(
    key_server: KeyServer, tokens: TokenFactory
) -> None:
    verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server), role_client="nufi")
    ordinary = {"roles": ["default-roles-super-llm"]}
    ours = await verifier.verify(
        tokens.sign(realm_access=ordinary, resource_access={"nufi": {"roles": ["nufi-admin"]}})
    )
    foreign = await verifier.verify(
        tokens.sign(realm_access=ordinary, resource_access={"grafana": {"roles": ["nufi-admin"]}})
    )
    assert ours.is_admin
    assert not foreign.is_admin


@pytest.mark.parametrize(
    ("values", "role_client"),
    [
        ({"oidc_audience": "nufi"}, "nufi"),
        ({"oidc_audience": "nufi", "oidc_role_client": "nufi-dashboard"}, "nufi-dashboard"),
        ({}, None),
    ],
)
async def test_the_role_client_setting_defaults_to_the_audience(
    values: dict[str, str], role_client: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_nufi_env(monkeypatch)
    verifier = TokenVerifier.from_settings(load_settings(oidc_issuer=ISSUER, **values))
    assert verifier is not None
    try:
        assert verifier.role_client == role_client
    finally:
        await verifier.close()
