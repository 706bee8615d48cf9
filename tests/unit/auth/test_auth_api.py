"""The HTTP face of authentication, in memory: 401/403/503 problems and their challenges.

The app runs with its lifespan over ASGI; its verifier is swapped for one that reads an in-memory
JWKS, so no identity provider is needed here (the integration tests use the real dev provider).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from nufi.api import create_app
from nufi.auth import JwksCache, TokenVerifier
from nufi.auth.errors import IdentityProviderUnavailable
from nufi.config import Settings
from support.asgi import serving as serve_app
from support.nufi_app import MEMORY_DATABASE, bearer, with_admin_only_route

from .auth_helpers import ISSUER, KeyServer, TokenFactory

PROBLEM = "application/problem+json"


pytestmark = pytest.mark.usefixtures("clean_env")


def use_verifier(app: FastAPI, verifier: TokenVerifier | None) -> None:
    app.state.services = dataclasses.replace(app.state.services, verifier=verifier)


@asynccontextmanager
async def serving(verifier: TokenVerifier | None) -> AsyncIterator[httpx.AsyncClient]:
    # An in-memory database: the server migrates its database at start, and a unit test writes no files.
    app = with_admin_only_route(create_app(Settings(database_url=SecretStr(MEMORY_DATABASE))))
    async with serve_app(app) as client:
        use_verifier(app, verifier)
        yield client


@pytest.fixture
def verifier(key_server: KeyServer) -> TokenVerifier:
    return TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server))


async def test_without_an_issuer_every_request_is_refused_saying_why(tokens: TokenFactory) -> None:
    async with serving(None) as client:
        for headers in ({}, bearer(tokens.sign())):
            response = await client.get("/api/v1/me", headers=headers)
            assert response.status_code == 401
            assert response.headers["content-type"] == PROBLEM
            assert response.headers["www-authenticate"] == "Bearer"
            assert "authentication is not configured" in response.json()["detail"]


async def test_me_describes_the_caller(verifier: TokenVerifier, tokens: TokenFactory) -> None:
    async with serving(verifier) as client:
        response = await client.get("/api/v1/me", headers=bearer(tokens.sign()))
    assert response.status_code == 200
    assert response.json() == {
        "username": "ada",
        # The account client's view-profile is left out: only realm roles and NuFi's client count.
        "roles": ["default-roles-super-llm", "nufi-admin", "offline_access"],
        "is_admin": True,
    }


async def test_no_token_is_a_bare_bearer_challenge(verifier: TokenVerifier) -> None:
    async with serving(verifier) as client:
        response = await client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    assert (body["type"], body["status"]) == ("unauthorized", 401)
    assert "missing bearer token" in body["detail"]


async def test_a_bad_token_is_an_invalid_token_challenge(
    verifier: TokenVerifier, tokens: TokenFactory
) -> None:
    async with serving(verifier) as client:
        expired = await client.get("/api/v1/me", headers=bearer(tokens.sign(exp=1_000_000)))
        garbage = await client.get("/api/v1/me", headers=bearer("not.a.jwt"))
    for response in (expired, garbage):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        assert response.headers["content-type"] == PROBLEM
    assert "token expired" in expired.json()["detail"]


async def test_admin_routes_are_403_for_users_and_open_to_admins(
    verifier: TokenVerifier, tokens: TokenFactory
) -> None:
    user_token = tokens.sign(preferred_username="uma", realm_access={"roles": ["viewer"]})
    async with serving(verifier) as client:
        as_user = await client.get("/test/admin-only", headers=bearer(user_token))
        as_admin = await client.get("/test/admin-only", headers=bearer(tokens.sign()))
        anonymous = await client.get("/test/admin-only")
        korean = await client.get("/test/admin-only", headers={**bearer(user_token), "Accept-Language": "ko"})
    assert as_user.status_code == 403
    assert as_user.headers["content-type"] == PROBLEM
    assert "www-authenticate" not in as_user.headers
    assert "requires role nufi-admin" in as_user.json()["detail"]
    told = korean.json()
    assert (told["title"], told["code"]) == ("권한 없음", "auth.role_required")
    assert told["params"] | {"request_id": None} == {
        "required_role": "nufi-admin",
        "user": "uma",
        "request_id": None,
    }
    assert told["detail"].startswith("nufi-admin 역할이 필요합니다. 사용자 'uma'에게는 이 역할이 없습니다")
    assert as_admin.status_code == 200
    assert as_admin.json() == {"admin": "ada"}
    assert anonymous.status_code == 401


async def test_an_unreachable_identity_provider_is_a_503(
    verifier: TokenVerifier, tokens: TokenFactory, key_server: KeyServer
) -> None:
    key_server.failure = IdentityProviderUnavailable(
        code="idp.timed_out", params={"issuer": "https://idp", "seconds": 5}
    )
    async with serving(verifier) as client:
        response = await client.get("/api/v1/me", headers=bearer(tokens.sign()))
    assert response.status_code == 503
    body = response.json()
    assert body["type"] == "identity-provider-unavailable"
    assert body["dependency"] == "identity-provider"
    assert (body["code"], body["params"]["seconds"]) == ("idp.timed_out", 5)
    assert "www-authenticate" not in response.headers


async def test_the_openapi_document_declares_the_bearer_scheme(verifier: TokenVerifier) -> None:
    async with serving(verifier) as client:
        spec = (await client.get("/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert any(
        s == {"type": "http", "scheme": "bearer", "description": s.get("description")}
        for s in schemes.values()
    )
    me = spec["paths"]["/api/v1/me"]["get"]
    assert me["security"]
    assert {"401", "503"} <= set(me["responses"])


@pytest.fixture
async def client_with_keys(key_server: KeyServer) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server))) as client:
        yield client


latin1_header = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=60
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=latin1_header | st.builds(lambda s: "Bearer " + s, latin1_header))
async def test_malformed_headers_over_http_are_always_401(
    client_with_keys: httpx.AsyncClient, value: str
) -> None:
    response = await client_with_keys.get("/api/v1/me", headers={b"Authorization": value.encode("latin-1")})
    assert response.status_code == 401, (value, response.text)
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["www-authenticate"].startswith("Bearer")
