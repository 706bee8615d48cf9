"""Fixtures for the auth unit tests: keys made once per run, a fresh JWKS, token factory and clock."""

from __future__ import annotations

import pytest

from nufi.auth import JwksCache, TokenVerifier

from .auth_helpers import ISSUER, FakeClock, KeyPair, KeyServer, TokenFactory, new_key


@pytest.fixture(scope="session")
def signing_key() -> KeyPair:
    return new_key("sig-1")


@pytest.fixture(scope="session")
def rotated_key() -> KeyPair:
    return new_key("sig-2")


@pytest.fixture(scope="session")
def encryption_key() -> KeyPair:
    return new_key("enc-1")


@pytest.fixture
def key_server(signing_key: KeyPair, encryption_key: KeyPair) -> KeyServer:
    # Encryption key first, as Keycloak lists it: picking "the first key" would be wrong.
    return KeyServer([encryption_key.jwk(use="enc", alg="RSA-OAEP"), signing_key.jwk()])


@pytest.fixture
def tokens(signing_key: KeyPair) -> TokenFactory:
    return TokenFactory(signing_key)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def verifier(key_server: KeyServer, clock: FakeClock) -> TokenVerifier:
    return TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server, clock=clock))
