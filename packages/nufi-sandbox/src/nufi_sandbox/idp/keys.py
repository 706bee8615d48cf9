"""The realm's keys: an RSA signing key (RS256), an RSA encryption key that is only published, as
Keycloak publishes one, and an HMAC secret for refresh tokens (Keycloak signs those with HS512).

With a state directory the keys are kept in it, so a restarted provider still accepts and
validates the tokens it minted before; without one every start brings new keys.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

ACCESS_ALGORITHM = "RS256"
REFRESH_ALGORITHM = "HS512"
_SIGNING_FILE = "signing-key.pem"
_ENCRYPTION_FILE = "encryption-key.pem"
_REFRESH_FILE = "refresh-secret"


@dataclass(frozen=True)
class RealmKeys:
    signing: rsa.RSAPrivateKey
    encryption: rsa.RSAPrivateKey
    refresh_secret: bytes

    @classmethod
    def generate(cls) -> RealmKeys:
        return cls(_new_rsa_key(), _new_rsa_key(), secrets.token_bytes(64))

    @classmethod
    def load_or_create(cls, state_dir: Path | None) -> RealmKeys:
        if state_dir is None:
            return cls.generate()
        state_dir.mkdir(parents=True, exist_ok=True)
        return cls(
            _load_or_create_rsa(state_dir / _SIGNING_FILE),
            _load_or_create_rsa(state_dir / _ENCRYPTION_FILE),
            _load_or_create_secret(state_dir / _REFRESH_FILE),
        )

    @property
    def signing_kid(self) -> str:
        return _thumbprint(self.signing.public_key())

    @property
    def encryption_kid(self) -> str:
        return _thumbprint(self.encryption.public_key())

    @property
    def refresh_kid(self) -> str:
        return base64.urlsafe_b64encode(hashlib.sha256(self.refresh_secret).digest()[:12]).decode()

    def jwks(self) -> dict[str, Any]:
        """The public key set, encryption key first: a client must choose by `kid` and `use`."""
        encryption = _public_jwk(self.encryption.public_key())
        encryption.update(kid=self.encryption_kid, use="enc", alg="RSA-OAEP")
        signing = _public_jwk(self.signing.public_key())
        signing.update(kid=self.signing_kid, use="sig", alg=ACCESS_ALGORITHM)
        return {"keys": [encryption, signing]}

    def sign(self, claims: dict[str, Any]) -> str:
        """An access or ID token."""
        return jwt.encode(
            claims, self.signing, algorithm=ACCESS_ALGORITHM, headers={"kid": self.signing_kid, "typ": "JWT"}
        )

    def sign_refresh(self, claims: dict[str, Any]) -> str:
        return jwt.encode(
            claims,
            self.refresh_secret,
            algorithm=REFRESH_ALGORITHM,
            headers={"kid": self.refresh_kid, "typ": "JWT"},
        )

    def verify(self, token: str, issuer: str, *, allow_expired: bool = False) -> dict[str, Any]:
        """Claims of an access or ID token this realm signed; raises jwt.PyJWTError otherwise."""
        claims: dict[str, Any] = jwt.decode(
            token,
            self.signing.public_key(),
            algorithms=[ACCESS_ALGORITHM],
            issuer=issuer,
            options={"verify_aud": False, "verify_exp": not allow_expired, "require": ["exp", "iss", "sub"]},
        )
        return claims

    def verify_refresh(self, token: str, issuer: str) -> dict[str, Any]:
        claims: dict[str, Any] = jwt.decode(
            token,
            self.refresh_secret,
            algorithms=[REFRESH_ALGORITHM],
            issuer=issuer,
            audience=issuer,
            options={"require": ["exp", "iss", "sub", "sid"]},
        )
        return claims


def _new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _public_jwk(key: rsa.RSAPublicKey) -> dict[str, Any]:
    jwk = RSAAlgorithm.to_jwk(key, as_dict=True)
    assert isinstance(jwk, dict)
    return dict(jwk)


def _thumbprint(key: rsa.RSAPublicKey) -> str:
    """RFC 7638 JWK thumbprint: stable for a key, different for every other key."""
    jwk = _public_jwk(key)
    canonical = json.dumps(
        {"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True
    )
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _load_or_create_rsa(path: Path) -> rsa.RSAPrivateKey:
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ValueError(f"{path} does not hold an RSA private key; delete it to get a new one")
        return key
    key = _new_rsa_key()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_private(path, pem)
    return key


def _load_or_create_secret(path: Path) -> bytes:
    if path.exists():
        return bytes.fromhex(path.read_text().strip())
    secret = secrets.token_bytes(64)
    _write_private(path, secret.hex().encode())
    return secret


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
