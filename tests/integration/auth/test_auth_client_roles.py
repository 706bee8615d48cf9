"""Which client roles make an administrator: the realm role and NuFi's own client's, never another
client's, with real tokens from the dev identity provider."""

from __future__ import annotations

import httpx
import pytest

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.nufi_app import bearer

from .idp_support import DASHBOARD_SECRET, nufi_settings, serving

ADMIN_ROUTE = "/api/v1/admin/audit"


def dashboard_token(idp: IdentityProviderProcess, username: str, password: str) -> str:
    """A token for `username` through the dashboard client, whose audience mapper adds `nufi`."""
    form = {"grant_type": "password", "username": username, "password": password}
    token: str = idp.token_response(form, auth=("nufi-dashboard", DASHBOARD_SECRET))["access_token"]
    return token


@pytest.mark.parametrize(
    ("username", "password", "status"),
    [
        ("admin", "admin-pw", 200),  # realm role
        ("client-admin", "client-admin-pw", 200),  # resource_access.nufi, NuFi's client
        ("foreign-admin", "foreign-admin-pw", 403),  # resource_access.some-unrelated-client
    ],
)
async def test_the_role_client_defaults_to_the_audience(
    idp: IdentityProviderProcess, username: str, password: str, status: int
) -> None:
    token = dashboard_token(idp, username, password)
    async with serving(nufi_settings(oidc_issuer=idp.issuer, oidc_audience="nufi")) as client:
        admin = await client.get(ADMIN_ROUTE, headers=bearer(token))
        me = await client.get("/api/v1/me", headers=bearer(token))
    assert admin.status_code == status, admin.text
    assert me.json()["is_admin"] is (status == 200)
    if status == 403:
        assert "requires role nufi-admin" in admin.json()["detail"]
        assert "nufi-admin" not in me.json()["roles"]


async def test_a_configured_role_client_is_the_only_client_whose_roles_count(
    idp: IdentityProviderProcess,
) -> None:
    foreign = bearer(idp.password_token("foreign-admin", "foreign-admin-pw"))
    client_admin = bearer(idp.password_token("client-admin", "client-admin-pw"))
    settings = nufi_settings(oidc_issuer=idp.issuer, oidc_role_client="some-unrelated-client")
    async with serving(settings) as client:
        assert (await client.get(ADMIN_ROUTE, headers=foreign)).status_code == 200
        assert (await client.get(ADMIN_ROUTE, headers=client_admin)).status_code == 403


async def test_without_audience_or_role_client_only_realm_roles_count(
    idp: IdentityProviderProcess, nufi: httpx.AsyncClient
) -> None:
    for username in ("client-admin", "foreign-admin"):
        token = idp.password_token(username, f"{username}-pw")
        assert (await nufi.get(ADMIN_ROUTE, headers=bearer(token))).status_code == 403
    admin = idp.password_token("admin", "admin-pw")
    assert (await nufi.get(ADMIN_ROUTE, headers=bearer(admin))).status_code == 200
