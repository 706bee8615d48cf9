"""Bodies are sized and callers authenticated before a body is read: 413, 401 and 403 never depend
on what the body holds, and a refused body is never pulled from the client."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import httpx
import pytest
from pydantic import SecretStr

from nufi.api import create_app
from nufi.auth import JwksCache, Principal, TokenVerifier
from nufi.config import Settings
from support.asgi import serving as serve_app
from support.nufi_app import MEMORY_DATABASE, bearer

from .auth_helpers import ISSUER, KeyServer, TokenFactory

PROBLEM = "application/problem+json"
LIMIT = 64 * 1024
ADMIN_WRITE = "/api/v1/admin/devices"
MALFORMED = b'{"id": "rngd", "display_name": '


pytestmark = pytest.mark.usefixtures("clean_env")


class CountingVerifier(TokenVerifier):
    verified = 0

    async def verify(self, token: str) -> Principal:
        self.verified += 1
        return await super().verify(token)


@dataclasses.dataclass
class Body:
    """A request body streamed in 16 KiB chunks that counts how much of it the server pulled."""

    chunks: int
    pulled: int = 0
    chunk: bytes = b" " * 16 * 1024

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.chunks):
            self.pulled += len(self.chunk)
            yield self.chunk

    @property
    def size(self) -> int:
        return self.chunks * len(self.chunk)


@pytest.fixture
def verifier(key_server: KeyServer) -> CountingVerifier:
    return CountingVerifier(issuer=ISSUER, keys=JwksCache(key_server))


@asynccontextmanager
async def serving(verifier: TokenVerifier) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(database_url=SecretStr(MEMORY_DATABASE), max_request_body_bytes=LIMIT)
    app = create_app(settings)
    async with serve_app(app) as client:
        app.state.services = dataclasses.replace(app.state.services, verifier=verifier)
        yield client


@pytest.fixture
async def client(verifier: CountingVerifier) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(verifier) as http:
        yield http


def user_token(tokens: TokenFactory) -> str:
    return tokens.sign(preferred_username="uma", realm_access={"roles": ["viewer"]})


def assert_problem(response: httpx.Response, status: int, type_: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, object] = response.json()
    assert (body["status"], body["type"]) == (status, type_)
    return body


def json_headers(**extra: str) -> dict[str, str]:
    return {"Content-Type": "application/json", **extra}


async def test_a_declared_length_above_the_limit_is_413_before_a_byte_is_read(
    client: httpx.AsyncClient, tokens: TokenFactory
) -> None:
    # 200 MiB announced; the server must answer from the headers alone.
    for headers in ({}, bearer(tokens.sign())):
        body = Body(chunks=200 * 64)
        response = await client.post(
            ADMIN_WRITE, content=body, headers=json_headers(**headers, **{"Content-Length": str(body.size)})
        )
        problem = assert_problem(response, 413, "content-too-large")
        assert problem["limit_bytes"] == LIMIT
        assert "NUFI_MAX_REQUEST_BODY_BYTES" in str(problem["detail"])
        assert response.headers["connection"] == "close"
        assert body.pulled == 0


async def test_a_streamed_body_is_cut_off_once_it_passes_the_limit(
    client: httpx.AsyncClient, tokens: TokenFactory
) -> None:
    body = Body(chunks=200 * 64)  # chunked, 200 MiB, no Content-Length
    response = await client.post(ADMIN_WRITE, content=body, headers=json_headers(**bearer(tokens.sign())))
    assert_problem(response, 413, "content-too-large")
    assert LIMIT < body.pulled <= LIMIT + len(body.chunk)


async def test_an_anonymous_streamed_body_is_refused_without_being_read(
    client: httpx.AsyncClient, tokens: TokenFactory
) -> None:
    anonymous, as_user = Body(chunks=200 * 64), Body(chunks=200 * 64)
    refused = await client.post(ADMIN_WRITE, content=anonymous, headers=json_headers())
    forbidden = await client.post(
        ADMIN_WRITE, content=as_user, headers=json_headers(**bearer(user_token(tokens)))
    )
    assert_problem(refused, 401, "unauthorized")
    assert refused.headers["www-authenticate"] == "Bearer"
    assert_problem(forbidden, 403, "forbidden")
    assert (anonymous.pulled, as_user.pulled) == (0, 0)


@pytest.mark.parametrize(
    "content",
    [MALFORMED, b"[]", b"\xff\xfe", b'{"id": 1}'],
    ids=["truncated", "wrong-shape", "not-utf8", "invalid"],
)
async def test_authentication_comes_before_the_body_is_parsed(
    client: httpx.AsyncClient, tokens: TokenFactory, content: bytes
) -> None:
    anonymous = await client.post(ADMIN_WRITE, content=content, headers=json_headers())
    bad_token = await client.post(ADMIN_WRITE, content=content, headers=json_headers(**bearer("x.y.z")))
    as_user = await client.post(
        ADMIN_WRITE, content=content, headers=json_headers(**bearer(user_token(tokens)))
    )
    as_admin = await client.post(ADMIN_WRITE, content=content, headers=json_headers(**bearer(tokens.sign())))
    assert_problem(anonymous, 401, "unauthorized")
    assert_problem(bad_token, 401, "unauthorized")
    assert bad_token.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    body = assert_problem(as_user, 403, "forbidden")
    assert "requires role nufi-admin" in str(body["detail"])
    # Only an admin's body reaches the route, which judges it.
    assert_problem(as_admin, 422, "validation-failed")


async def test_a_body_under_the_limit_reaches_the_route_and_the_token_is_verified_once(
    client: httpx.AsyncClient, tokens: TokenFactory, verifier: CountingVerifier
) -> None:
    content = b'{"resource_key": "furiosa.ai/rngd"' + b" " * (LIMIT - 100) + b"}"
    assert len(content) < LIMIT
    response = await client.post(
        "/api/v1/admin/devices/check-resource-key",
        content=content,
        headers=json_headers(**bearer(tokens.sign())),
    )
    # No cluster is configured: the route ran and said so, after the guard let the body through.
    assert response.status_code in (200, 503), response.text
    assert response.status_code != 413
    assert verifier.verified == 1


async def test_requests_without_a_body_are_authenticated_by_the_route(
    client: httpx.AsyncClient, tokens: TokenFactory, verifier: CountingVerifier
) -> None:
    response = await client.get("/api/v1/me", headers=bearer(tokens.sign()))
    assert response.status_code == 200
    assert verifier.verified == 1


def two_authorization_headers(first: str, second: str) -> Iterator[tuple[str, str]]:
    yield ("Authorization", f"Bearer {first}")
    yield ("Authorization", f"Bearer {second}")


async def test_two_authorization_headers_are_a_400(client: httpx.AsyncClient, tokens: TokenFactory) -> None:
    headers = list(two_authorization_headers(tokens.sign(), user_token(tokens)))
    without_body = await client.get("/api/v1/me", headers=headers)
    with_body = await client.post(ADMIN_WRITE, content=MALFORMED, headers=[*headers, *json_headers().items()])
    for response in (without_body, with_body):
        body = assert_problem(response, 400, "bad-request")
        assert "2 Authorization headers" in str(body["detail"])
