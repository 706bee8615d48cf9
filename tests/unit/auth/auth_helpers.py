"""In-test keys, a token factory, a fake clock and an in-memory JWKS for the auth unit tests."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from nufi.auth.errors import IdentityProviderUnavailable

ISSUER = "https://keycloak.test/realms/super-llm"


@dataclass(frozen=True)
class KeyPair:
    private: rsa.RSAPrivateKey
    kid: str

    def jwk(self, *, use: str = "sig", alg: str = "RS256") -> dict[str, Any]:
        jwk = json.loads(str(RSAAlgorithm.to_jwk(self.private.public_key())))
        jwk.update(kid=self.kid, use=use, alg=alg)
        return dict(jwk)


def new_key(kid: str) -> KeyPair:
    return KeyPair(rsa.generate_private_key(public_exponent=65537, key_size=2048), kid)


@dataclass
class KeyServer:
    """Stands in for the issuer's JWKS endpoint: counts calls and can be told to fail."""

    keys: list[dict[str, Any]]
    calls: int = 0
    failure: IdentityProviderUnavailable | None = None

    async def __call__(self) -> Mapping[str, Any]:
        self.calls += 1
        await asyncio.sleep(0.01)  # a network round trip: lets concurrent callers pile up
        if self.failure is not None:
            raise IdentityProviderUnavailable(code=self.failure.code, params=self.failure.own_params)
        return {"keys": list(self.keys)}


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class TokenFactory:
    key: KeyPair
    issuer: str = ISSUER
    defaults: dict[str, Any] = field(default_factory=dict)

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        claims: dict[str, Any] = {
            "exp": now + 300,
            "iat": now,
            "jti": str(uuid.uuid4()),
            "iss": self.issuer,
            "sub": "7c3b1e52-5d8a-4a61-9a4c-2f0c8c1b9d10",
            "typ": "Bearer",
            "azp": "nufi-cli",
            "preferred_username": "ada",
            "realm_access": {"roles": ["default-roles-super-llm", "offline_access", "nufi-admin"]},
            "resource_access": {"account": {"roles": ["view-profile"]}},
            "scope": "profile email",
        }
        claims.update(self.defaults)
        for name, value in overrides.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return claims

    def sign(
        self, *, key: KeyPair | None = None, headers: dict[str, Any] | None = None, **overrides: Any
    ) -> str:
        signer = key or self.key
        return jwt.encode(
            self.claims(**overrides),
            signer.private,
            algorithm="RS256",
            headers={"kid": signer.kid, **(headers or {})},
        )
