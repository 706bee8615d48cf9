"""The tokens of a dashboard session, and how they are sealed before they reach the database.

The key is derived from NUFI_DASHBOARD_SESSION_SECRET with HKDF, a different key per purpose, so a
sealed login cookie can never be passed off as a sealed token set or the other way round. Fernet
authenticates as well as encrypts: a row altered in the database fails to open instead of giving
someone else's tokens.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

TOKENS_PURPOSE = b"nufi dashboard session tokens v1"
LOGIN_PURPOSE = b"nufi dashboard login in flight v1"


class SealBroken(Exception):
    """A sealed value that cannot be opened: altered, sealed under another secret, or too old."""


def fernet_for(secret: str, purpose: bytes) -> Fernet:
    """A Fernet keyed by HKDF-SHA256(secret, info=purpose)."""
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(secret.encode())
    return Fernet(base64.urlsafe_b64encode(key))


@dataclass(frozen=True)
class TokenSet:
    """What the issuer's token endpoint gave, and when the access token expires (Unix seconds)."""

    access_token: str
    access_expires_at: float
    refresh_token: str | None = None
    id_token: str | None = None

    def expires_within(self, seconds: float, *, now: float) -> bool:
        return self.access_expires_at - now <= seconds

    def refreshed(self, newer: TokenSet) -> TokenSet:
        """`newer`, keeping the refresh and ID tokens it did not replace (a refresh answer may leave
        them out, and the ID token is still needed as the hint when signing out)."""
        return TokenSet(
            access_token=newer.access_token,
            access_expires_at=newer.access_expires_at,
            refresh_token=newer.refresh_token or self.refresh_token,
            id_token=newer.id_token or self.id_token,
        )

    def __repr__(self) -> str:
        return (
            f"TokenSet(access_expires_at={self.access_expires_at}, refresh={self.refresh_token is not None})"
        )


class TokenCipher:
    """Seals a TokenSet for one session: the session's id hash goes inside, and opening checks it,
    so a sealed value copied into another session's row does not open there."""

    def __init__(self, secret: str) -> None:
        self._fernet = fernet_for(secret, TOKENS_PURPOSE)

    def seal(self, tokens: TokenSet, *, session: str) -> str:
        payload = {"session": session, **asdict(tokens)}
        return self._fernet.encrypt(json.dumps(payload).encode()).decode("ascii")

    def open(self, sealed: str, *, session: str) -> TokenSet:
        try:
            payload: Any = json.loads(self._fernet.decrypt(sealed.encode("ascii")))
        except (InvalidToken, ValueError, UnicodeError):
            raise SealBroken("the session's tokens cannot be opened with this secret") from None
        if not isinstance(payload, dict) or payload.pop("session", None) != session:
            raise SealBroken("the sealed tokens belong to another session")
        try:
            return TokenSet(**payload)
        except TypeError:
            raise SealBroken("the sealed tokens are not a token set") from None
