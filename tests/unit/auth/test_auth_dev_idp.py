"""The dev identity provider's pieces, in memory: realm file rules, PKCE, token shapes and grants.

Its tokens are checked with NuFi's own verifier, so the two agree on what a Keycloak token is.
"""

from __future__ import annotations

import base64
import copy
import os
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
import yaml

from nufi.auth import InvalidToken, JwksCache, TokenVerifier
from nufi.auth.jwks import signing_keys
from nufi_sandbox.idp.context import RealmContext
from nufi_sandbox.idp.grants import OAuthError, token_grant
from nufi_sandbox.idp.keys import RealmKeys
from nufi_sandbox.idp.pkce import s256_challenge, verifier_matches
from nufi_sandbox.idp.realm import ClientSpec, RealmSpec, load_realm

BASE_URL = "http://127.0.0.1:8180"
ISSUER = f"{BASE_URL}/realms/super-llm"
REALM_FILE: dict[str, Any] = {
    "users": [
        {"username": "admin", "password": "admin-pw", "roles": ["nufi-admin"], "email": "admin@example.com"},
        {"username": "Uma", "password": "uma-pw", "client_roles": {"nufi-dashboard": ["viewer"]}},
    ],
    "clients": [
        {
            "id": "nufi-dashboard",
            "secret": "s3cret",
            "redirect_uris": ["http://127.0.0.1:8080/auth/callback", "http://localhost:*"],
            "audience": "nufi",
            "access_token_lifespan": 60,
            "service_account_roles": ["nufi-reader"],
        },
    ],
}


@pytest.fixture(scope="module")
def keys() -> RealmKeys:
    return RealmKeys.generate()


@pytest.fixture
def realm(keys: RealmKeys) -> RealmContext:
    spec = RealmSpec.model_validate(REALM_FILE).with_cli_client()
    return RealmContext.create(name="super-llm", base_url=BASE_URL, spec=spec, keys=keys)


def nufi_verifier(keys: RealmKeys, audience: str | None = None) -> TokenVerifier:
    async def jwks() -> dict[str, Any]:
        return keys.jwks()

    return TokenVerifier(issuer=ISSUER, keys=JwksCache(jwks), audience=audience)


def claims_of(token: str) -> dict[str, Any]:
    decoded: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return decoded


def test_pkce_s256_matches_the_rfc_7636_example() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert s256_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert verifier_matches(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    assert not verifier_matches(verifier[:-1] + "Y", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    short = "abc"
    assert not verifier_matches(short, s256_challenge(short))


def test_redirect_uris_match_exactly_or_by_prefix_when_starred() -> None:
    client = ClientSpec(id="c", secret="x", redirect_uris=["http://127.0.0.1:8080/cb", "http://localhost:*"])
    assert client.accepts_redirect("http://127.0.0.1:8080/cb")
    assert not client.accepts_redirect("http://127.0.0.1:8080/cb/evil")
    assert client.accepts_redirect("http://localhost:3000/anything")
    assert not client.accepts_redirect("http://127.0.0.1:9999/cb")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"clients": [{"id": "dash"}]}, "needs a secret"),
        ({"clients": [{"id": "dash", "public": True, "secret": "x"}]}, "cannot have a secret"),
        ({"users": [{"username": "a", "password": "x"}, {"username": "A", "password": "y"}]}, "duplicate"),
        ({"users": [{"username": "a", "password": "x", "rolez": []}]}, "rolez"),
    ],
)
def test_realm_file_mistakes_are_named(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RealmSpec.model_validate(raw)


def test_the_bundled_users_file_loads_with_an_admin_and_a_user() -> None:
    from nufi_sandbox.idp.realm import DEFAULT_USERS_FILE

    spec = load_realm(DEFAULT_USERS_FILE)
    admin, user = spec.user("admin"), spec.user("user")
    assert admin is not None and "nufi-admin" in admin.roles
    assert user is not None and "nufi-admin" not in user.roles
    cli = spec.client("nufi-cli")
    assert cli is not None and cli.public


def test_the_jwks_lists_the_encryption_key_first_and_nufi_picks_the_signing_key(keys: RealmKeys) -> None:
    published = keys.jwks()["keys"]
    assert [(k["use"], k["alg"]) for k in published] == [("enc", "RSA-OAEP"), ("sig", "RS256")]
    assert all(set(k) >= {"kid", "kty", "n", "e"} for k in published)
    assert "d" not in published[1]  # no private parts
    assert list(signing_keys(keys.jwks())) == [keys.signing_kid]


def password(realm: RealmContext, username: str, secret: str, **form: str) -> dict[str, Any]:
    return token_grant(
        realm,
        {"grant_type": "password", "client_id": "nufi-cli", "username": username, "password": secret, **form},
        None,
    )


async def test_a_password_grant_token_is_keycloak_shaped_and_nufi_accepts_it(realm: RealmContext) -> None:
    body = password(realm, "admin", "admin-pw")
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 300
    claims = claims_of(body["access_token"])
    assert claims["iss"] == ISSUER
    assert (claims["typ"], claims["azp"], claims["preferred_username"]) == ("Bearer", "nufi-cli", "admin")
    assert "aud" not in claims
    assert claims["realm_access"]["roles"] == [
        "default-roles-super-llm",
        "offline_access",
        "uma_authorization",
        "nufi-admin",
    ]
    assert claims["resource_access"]["account"]["roles"]
    assert claims["exp"] - claims["iat"] == 300
    assert claims["sid"] == body["session_state"]
    assert jwt.get_unverified_header(body["access_token"])["kid"] == realm.keys.signing_kid
    principal = await nufi_verifier(realm.keys).verify(body["access_token"])
    assert (principal.username, principal.is_admin) == ("admin", True)


async def test_client_roles_and_audience_come_through(realm: RealmContext) -> None:
    body = token_grant(
        realm,
        {"grant_type": "password", "username": "uma", "password": "uma-pw"},
        "Basic " + base64.b64encode(b"nufi-dashboard:s3cret").decode(),
    )
    claims = claims_of(body["access_token"])
    assert claims["aud"] == "nufi"
    assert claims["azp"] == "nufi-dashboard"
    assert claims["preferred_username"] == "uma"
    assert claims["resource_access"]["nufi-dashboard"] == {"roles": ["viewer"]}
    assert claims["exp"] - claims["iat"] == 60
    principal = await nufi_verifier(realm.keys, audience="nufi").verify(body["access_token"])
    assert principal.client_roles["nufi-dashboard"] == {"viewer"}
    assert not principal.is_admin


@pytest.mark.parametrize(
    ("form", "authorization", "status", "error", "description"),
    [
        ({"username": "admin", "password": "wrong"}, None, 401, "invalid_grant", "Invalid user credentials"),
        ({"username": "nobody", "password": "x"}, None, 401, "invalid_grant", "Invalid user credentials"),
        (
            {"client_id": "nope", "username": "admin", "password": "admin-pw"},
            None,
            401,
            "invalid_client",
            None,
        ),
        (
            {"client_id": "nufi-dashboard", "username": "admin", "password": "admin-pw"},
            None,
            401,
            "invalid_client",
            None,
        ),
        (
            {"username": "admin", "password": "admin-pw"},
            "Basic " + base64.b64encode(b"nufi-dashboard:wrong").decode(),
            401,
            "invalid_client",
            None,
        ),
        ({"username": "admin", "password": "admin-pw"}, "Basic !!!", 401, "invalid_client", None),
    ],
)
def test_password_grant_refusals_carry_keycloaks_errors(
    realm: RealmContext,
    form: dict[str, str],
    authorization: str | None,
    status: int,
    error: str,
    description: str | None,
) -> None:
    request = {"grant_type": "password", **form}
    if authorization is None:
        request.setdefault("client_id", "nufi-cli")
    with pytest.raises(OAuthError) as refused:
        token_grant(realm, request, authorization)
    assert (refused.value.status, refused.value.error) == (status, error)
    if description is not None:
        assert refused.value.description == description


def test_unknown_or_missing_grant_types_are_refused(realm: RealmContext) -> None:
    with pytest.raises(OAuthError, match="Unsupported grant_type") as unsupported:
        token_grant(realm, {"grant_type": "implicit", "client_id": "nufi-cli"}, None)
    assert unsupported.value.error == "unsupported_grant_type"
    with pytest.raises(OAuthError, match="grant_type") as missing:
        token_grant(realm, {"client_id": "nufi-cli"}, None)
    assert missing.value.error == "invalid_request"


async def test_refresh_tokens_are_hs512_renew_the_session_and_are_not_access_tokens(
    realm: RealmContext,
) -> None:
    first = password(realm, "admin", "admin-pw", scope="openid")
    refresh = first["refresh_token"]
    assert jwt.get_unverified_header(refresh)["alg"] == "HS512"
    assert claims_of(refresh)["typ"] == "Refresh"
    with pytest.raises(InvalidToken, match="'HS512' is not accepted"):
        await nufi_verifier(realm.keys).verify(refresh)
    with pytest.raises(InvalidToken, match="not an access token"):
        await nufi_verifier(realm.keys).verify(first["id_token"])
    renewed = token_grant(
        realm, {"grant_type": "refresh_token", "client_id": "nufi-cli", "refresh_token": refresh}, None
    )
    assert claims_of(renewed["access_token"])["sid"] == first["session_state"]
    assert renewed["access_token"] != first["access_token"]
    realm.sessions.end_session(first["session_state"])
    with pytest.raises(OAuthError, match="Session not active"):
        token_grant(
            realm, {"grant_type": "refresh_token", "client_id": "nufi-cli", "refresh_token": refresh}, None
        )


def test_id_tokens_come_only_with_the_openid_scope(realm: RealmContext) -> None:
    assert "id_token" not in password(realm, "admin", "admin-pw")
    body = password(realm, "admin", "admin-pw", scope="openid")
    id_claims = claims_of(body["id_token"])
    assert (id_claims["typ"], id_claims["aud"], id_claims["azp"]) == ("ID", "nufi-cli", "nufi-cli")
    assert body["scope"] == "openid profile email"


def test_client_credentials_give_a_service_account_token(realm: RealmContext) -> None:
    body = token_grant(
        realm,
        {"grant_type": "client_credentials", "client_id": "nufi-dashboard", "client_secret": "s3cret"},
        None,
    )
    claims = claims_of(body["access_token"])
    assert claims["preferred_username"] == "service-account-nufi-dashboard"
    assert "nufi-reader" in claims["realm_access"]["roles"]
    assert "refresh_token" not in body
    with pytest.raises(OAuthError, match="Public client"):
        token_grant(realm, {"grant_type": "client_credentials", "client_id": "nufi-cli"}, None)


def test_a_negative_lifespan_mints_tokens_that_are_already_expired(keys: RealmKeys) -> None:
    spec = RealmSpec.model_validate(
        {
            "users": [{"username": "a", "password": "p"}],
            "clients": [{"id": "expired-cli", "public": True, "access_token_lifespan": -120}],
        }
    ).with_cli_client()
    realm = RealmContext.create(name="super-llm", base_url=BASE_URL, spec=spec, keys=keys)
    body = token_grant(
        realm, {"grant_type": "password", "client_id": "expired-cli", "username": "a", "password": "p"}, None
    )
    assert claims_of(body["access_token"])["exp"] < time.time() - 100


async def test_a_role_taken_away_in_the_users_file_is_gone_at_the_next_refresh(
    keys: RealmKeys, tmp_path: Path
) -> None:
    users = tmp_path / "realm.yaml"
    users.write_text(yaml.safe_dump(REALM_FILE))
    realm = RealmContext.create(
        name="super-llm", base_url=BASE_URL, spec=load_realm(users), keys=keys, source=users
    )
    first = password(realm, "admin", "admin-pw")
    assert (await nufi_verifier(keys).verify(first["access_token"])).is_admin
    revoked = copy.deepcopy(REALM_FILE)
    revoked["users"][0]["roles"] = []
    half_written = tmp_path / "realm.yaml.new"
    half_written.write_text(yaml.safe_dump(revoked))
    half_written.replace(users)
    os.utime(users, ns=(time.time_ns(), time.time_ns() + 1_000_000))  # a later mtime however coarse
    realm.reread_if_changed()
    form = {"grant_type": "refresh_token", "client_id": "nufi-cli", "refresh_token": first["refresh_token"]}
    renewed = token_grant(realm, form, None)
    assert not (await nufi_verifier(keys).verify(renewed["access_token"])).is_admin
    # A file that does not read (half-way through an edit) keeps the realm as it was.
    users.write_text("users: [{")
    realm.reread_if_changed()
    assert realm.spec.user("admin") is not None
