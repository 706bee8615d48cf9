"""An identity provider that hangs, trickles or fails: every request still answers within the issuer
timeout (plus a second), and an outage costs the issuer a few requests, not one per NuFi request.

The fake issuer is a small app on a loopback port whose behaviour the test switches; NuFi is served
in memory and talks to it over HTTP.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Literal

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from nufi.api import create_app
from nufi.auth import JwksCache, OidcProvider, TokenVerifier
from support.asgi import serving as serve_app
from support.loopback import closed_port, serve_in_thread
from support.nufi_app import bearer

from .idp_support import nufi_settings

TIMEOUT = 0.5
REALM = "/realms/super-llm"
Mode = Literal["up", "hang", "trickle", "fail"]


@dataclasses.dataclass
class FakeIssuer:
    """Serves discovery and a JWKS while `mode` is "up"; otherwise hangs, trickles bytes or fails."""

    key: rsa.RSAPrivateKey
    mode: Mode = "up"
    requests: int = 0
    base_url: str = ""

    @property
    def issuer(self) -> str:
        return self.base_url + REALM

    def token(self) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": "s-1", "preferred_username": "ada", "exp": now + 300, "iat": now}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "k1"})

    async def _answer(self, body: dict[str, object]) -> Response:
        self.requests += 1
        if self.mode == "hang":
            await asyncio.sleep(60)
        if self.mode == "trickle":
            # A byte every tenth of a second: no single read ever waits long enough to time out.
            async def drip() -> AsyncIterator[bytes]:
                for _ in range(600):
                    yield b" "
                    await asyncio.sleep(0.1)

            return StreamingResponse(drip(), media_type="application/json")
        if self.mode == "fail":
            return JSONResponse({"error": "unavailable"}, status_code=503)
        return JSONResponse(body)

    async def discovery(self, request: Request) -> Response:
        return await self._answer({"issuer": self.issuer, "jwks_uri": self.issuer + "/certs"})

    async def certs(self, request: Request) -> Response:
        jwk = json.loads(str(RSAAlgorithm.to_jwk(self.key.public_key())))
        return await self._answer({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route(REALM + "/.well-known/openid-configuration", self.discovery),
                Route(REALM + "/certs", self.certs),
            ]
        )


@pytest.fixture(scope="module")
def signing_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def fake_issuer(signing_key: rsa.RSAPrivateKey) -> Iterator[FakeIssuer]:
    fake = FakeIssuer(signing_key)
    with serve_in_thread(fake.app(), name="fake-issuer") as url:
        fake.base_url = url
        yield fake


async def timed(client: httpx.AsyncClient, token: str) -> tuple[int, float]:
    began = time.monotonic()
    response = await client.get("/api/v1/me", headers=bearer(token))
    return response.status_code, time.monotonic() - began


@pytest.mark.parametrize("mode", ["hang", "trickle"])
async def test_a_stalled_issuer_costs_a_request_the_timeout_at_most(
    fake_issuer: FakeIssuer, mode: Mode
) -> None:
    fake_issuer.mode = mode
    settings = nufi_settings(oidc_issuer=fake_issuer.issuer, oidc_timeout_seconds=TIMEOUT)
    async with serve_app(create_app(settings), client_timeout=30) as client:
        first = await timed(client, fake_issuer.token())
        together = await asyncio.gather(*(timed(client, fake_issuer.token()) for _ in range(10)))
    for status, seconds in (first, *together):
        assert status == 503
        assert seconds < TIMEOUT + 1
    assert fake_issuer.requests == 1  # then the back-off: nobody waits on the issuer again


async def test_a_refused_connection_is_a_quick_503_and_is_not_retried_per_request() -> None:
    issuer = f"http://127.0.0.1:{closed_port()}{REALM}"
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = FakeIssuer(key, base_url=issuer.removesuffix(REALM)).token()
    async with serve_app(
        create_app(nufi_settings(oidc_issuer=issuer, oidc_timeout_seconds=TIMEOUT))
    ) as client:
        results = [await timed(client, token) for _ in range(5)]
    assert all(status == 503 and seconds < TIMEOUT + 1 for status, seconds in results)


async def test_an_outage_before_any_key_was_loaded_costs_the_issuer_one_request(
    fake_issuer: FakeIssuer,
) -> None:
    fake_issuer.mode = "fail"
    settings = nufi_settings(oidc_issuer=fake_issuer.issuer, oidc_timeout_seconds=TIMEOUT)
    async with serve_app(create_app(settings)) as client:
        statuses = [
            (await client.get("/api/v1/me", headers=bearer(fake_issuer.token()))).status_code
            for _ in range(50)
        ]
    assert set(statuses) == {503}
    assert fake_issuer.requests == 1


@dataclasses.dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_cached_keys_serve_through_an_outage_and_each_back_off_allows_one_attempt(
    fake_issuer: FakeIssuer,
) -> None:
    # max_age 0: every request finds the keys due for a refresh, the path that ignored the back-off.
    clock = Clock()
    provider = OidcProvider(fake_issuer.issuer, timeout_seconds=TIMEOUT)
    verifier = TokenVerifier(
        issuer=fake_issuer.issuer,
        keys=JwksCache(provider.fetch_jwks, max_age=0.0, min_refresh_interval=30.0, clock=clock),
        on_close=provider.close,
    )
    app = create_app(nufi_settings())
    try:
        async with serve_app(app, client_timeout=30) as client:
            app.state.services = dataclasses.replace(app.state.services, verifier=verifier)
            assert (await timed(client, fake_issuer.token()))[0] == 200
            loaded = fake_issuer.requests  # discovery and keys
            for mode in ("fail", "hang"):
                fake_issuer.mode = mode
                clock.now += 31  # the back-off has run out: one refresh may be tried
                results = [await timed(client, fake_issuer.token()) for _ in range(25)]
                assert {status for status, _ in results} == {200}  # the cached keys
                assert all(seconds < TIMEOUT + 1 for _, seconds in results)
            # One attempt per back-off period, however many requests found the keys stale.
            assert fake_issuer.requests == loaded + 2
    finally:
        await verifier.close()
