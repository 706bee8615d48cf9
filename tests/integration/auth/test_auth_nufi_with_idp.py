"""NuFi authenticating real tokens from the dev identity provider, end to end over HTTP."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.loopback import closed_port
from support.nufi_app import bearer

from .idp_support import DASHBOARD_SECRET, nufi_settings, serving

PROBLEM = "application/problem+json"


async def test_me_for_an_admin(idp: IdentityProviderProcess, nufi: httpx.AsyncClient) -> None:
    response = await nufi.get("/api/v1/me", headers=bearer(idp.password_token("admin", "admin-pw")))
    assert response.status_code == 200
    assert response.json() == {
        "username": "admin",
        # Realm roles only: no role client is configured, so the account client's roles do not count.
        "roles": ["default-roles-super-llm", "nufi-admin", "offline_access", "uma_authorization"],
        "is_admin": True,
    }


async def test_me_for_a_user_with_a_client_role(idp: IdentityProviderProcess) -> None:
    token = bearer(idp.password_token("user", "user-pw"))
    settings = nufi_settings(oidc_issuer=idp.issuer, oidc_role_client="nufi-dashboard")
    async with serving(settings) as client:
        response = await client.get("/api/v1/me", headers=token)
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "user"
    assert body["is_admin"] is False
    assert "viewer" in body["roles"]  # from resource_access.nufi-dashboard, the role client
    assert "manage-account" not in body["roles"]  # the account client's
    assert "nufi-admin" not in body["roles"]
    assert body["roles"] == sorted(body["roles"])


async def test_admin_only_routes_refuse_users_with_403(
    idp: IdentityProviderProcess, nufi: httpx.AsyncClient
) -> None:
    as_user = await nufi.get("/test/admin-only", headers=bearer(idp.password_token("user", "user-pw")))
    as_admin = await nufi.get("/test/admin-only", headers=bearer(idp.password_token("admin", "admin-pw")))
    assert as_user.status_code == 403
    assert as_user.headers["content-type"] == PROBLEM
    assert "requires role nufi-admin" in as_user.json()["detail"]
    assert as_admin.status_code == 200
    assert as_admin.json() == {"admin": "admin"}


async def test_no_token_is_401_with_a_bearer_challenge(nufi: httpx.AsyncClient) -> None:
    response = await nufi.get("/api/v1/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.headers["content-type"] == PROBLEM


async def test_an_expired_token_is_401_expired(idp: IdentityProviderProcess, nufi: httpx.AsyncClient) -> None:
    token = idp.password_token("admin", "admin-pw", client_id="expired-cli")
    response = await nufi.get("/api/v1/me", headers=bearer(token))
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    assert "token expired" in response.json()["detail"]


async def test_a_tampered_signature_is_401(idp: IdentityProviderProcess, nufi: httpx.AsyncClient) -> None:
    header, payload, signature = idp.password_token("user", "user-pw").split(".")
    tampered = signature[:-6] + ("AAAAAA" if not signature.endswith("AAAAAA") else "BBBBBB")
    response = await nufi.get("/api/v1/me", headers=bearer(f"{header}.{payload}.{tampered}"))
    assert response.status_code == 401
    assert "signature is invalid" in response.json()["detail"]


async def test_a_forgery_with_our_issuer_but_a_foreign_key_is_401(
    idp: IdentityProviderProcess, nufi: httpx.AsyncClient
) -> None:
    genuine = jwt.decode(idp.password_token("user", "user-pw"), options={"verify_signature": False})
    genuine["realm_access"] = {"roles": ["nufi-admin"]}
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = jwt.encode(genuine, forger, algorithm="RS256", headers={"kid": "forged-key"})
    response = await nufi.get("/api/v1/me", headers=bearer(forged))
    assert response.status_code == 401
    assert "token signed by an unknown key" in response.json()["detail"]


async def test_a_token_from_another_issuer_is_401(
    tmp_path: Path, idp: IdentityProviderProcess, nufi: httpx.AsyncClient
) -> None:
    other = IdentityProviderProcess(tmp_path / "other", realm="other-realm")
    await other.start_async()
    try:
        token = other.password_token("admin", "admin")  # the bundled dev users
    finally:
        await other.stop_async()
    response = await nufi.get("/api/v1/me", headers=bearer(token))
    assert response.status_code == 401
    detail = response.json()["detail"]
    assert detail == f"issuer mismatch: expected {idp.issuer!r}, got {other.issuer!r}"


async def test_the_audience_may_match_aud_or_azp(idp: IdentityProviderProcess) -> None:
    cli_token = idp.password_token("admin", "admin-pw")  # azp nufi-cli, no aud
    dashboard_token = idp.token_response(
        {"grant_type": "password", "username": "admin", "password": "admin-pw"},
        auth=("nufi-dashboard", DASHBOARD_SECRET),
    )["access_token"]  # aud nufi, azp nufi-dashboard
    async with serving(nufi_settings(oidc_issuer=idp.issuer, oidc_audience="nufi")) as client:
        refused = await client.get("/api/v1/me", headers=bearer(cli_token))
        accepted = await client.get("/api/v1/me", headers=bearer(dashboard_token))
    assert refused.status_code == 401
    assert "not meant for NuFi" in refused.json()["detail"]
    assert accepted.status_code == 200
    async with serving(nufi_settings(oidc_issuer=idp.issuer, oidc_audience="nufi-cli")) as client:
        by_azp = await client.get("/api/v1/me", headers=bearer(cli_token))
    assert by_azp.status_code == 200


async def test_a_custom_admin_role_setting_is_honoured(idp: IdentityProviderProcess) -> None:
    token = idp.password_token("admin", "admin-pw")
    async with serving(nufi_settings(oidc_issuer=idp.issuer, admin_role="platform-admin")) as client:
        me = await client.get("/api/v1/me", headers=bearer(token))
        admin = await client.get("/test/admin-only", headers=bearer(token))
    assert me.json()["is_admin"] is False
    assert admin.status_code == 403
    assert "requires role platform-admin" in admin.json()["detail"]


async def test_an_unreachable_issuer_is_503_not_401() -> None:
    issuer = f"http://127.0.0.1:{closed_port()}/realms/super-llm"
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    token = jwt.encode(
        {"iss": issuer, "sub": "s", "exp": now + 60, "iat": now, "preferred_username": "ada"},
        key,
        algorithm="RS256",
        headers={"kid": "k1"},
    )
    async with serving(nufi_settings(oidc_issuer=issuer)) as client:
        response = await client.get("/api/v1/me", headers=bearer(token))
    assert response.status_code == 503
    body = response.json()
    assert body["type"] == "identity-provider-unavailable"
    assert issuer in body["detail"]
    assert "cannot fetch" in body["detail"]
