"""Integers far beyond any real value in the admin routes' query parameters are a 422 problem, never
an overflow deep in the database (a 500)."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import SecretStr

from nufi.api import create_app
from nufi.auth import JwksCache, TokenVerifier
from nufi.config import Settings
from support.asgi import serving
from support.nufi_app import MEMORY_DATABASE, bearer

from .auth_helpers import ISSUER, KeyServer, TokenFactory

HUGE = str(2**63)


pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", f"/api/v1/admin/audit?offset={HUGE}"),
        ("GET", f"/api/v1/admin/audit?limit={HUGE}"),
        ("GET", f"/api/v1/admin/audit?offset=-{HUGE}"),
        ("DELETE", f"/api/v1/admin/devices/custom-lpu?revision={HUGE}"),
        ("DELETE", f"/api/v1/admin/devices/custom-lpu?revision={2**31}"),
    ],
)
async def test_huge_integers_are_a_422_naming_the_parameter(
    key_server: KeyServer, tokens: TokenFactory, method: str, url: str
) -> None:
    app = create_app(Settings(database_url=SecretStr(MEMORY_DATABASE)))
    async with serving(app) as client:
        verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server))
        app.state.services = dataclasses.replace(app.state.services, verifier=verifier)
        response = await client.request(method, url, headers=bearer(tokens.sign()))
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["field"] == url.partition("?")[2].partition("=")[0]
