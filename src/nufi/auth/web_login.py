"""A dashboard sign-in in flight: what the callback needs to finish it, and where to go after.

It travels in a short-lived cookie, sealed (encrypted and authenticated), rather than in server
memory: the callback may reach another replica, or this one after a restart. The PKCE verifier must
stay secret until the code is exchanged, hence encrypted and not merely signed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from authlib.common.security import generate_token  # type: ignore[import-untyped]
from authlib.oauth2.rfc7636 import create_s256_code_challenge  # type: ignore[import-untyped]
from cryptography.fernet import InvalidToken

from nufi.auth.web_tokens import LOGIN_PURPOSE, SealBroken, fernet_for

# Long enough to type a password and fetch a one-time code, short enough that a stolen cookie
# expires before it is useful.
LOGIN_MAX_AGE_SECONDS = 600
MAX_NEXT_LENGTH = 2048
FALLBACK_NEXT = "/"
# The sign-in routes themselves: coming back to them after signing in would loop or sign out.
_SIGN_IN_PREFIX = "/auth/"


def safe_next(candidate: object) -> str:
    """`candidate` when it is a path on this site (`/monitoring?type=x`), else `/`.

    Refused: anything absolute (`https://evil.example`), scheme- or protocol-relative (`//evil`,
    `javascript:...`), backslashes (browsers read `/\\evil` as `//evil`), whitespace and control
    characters (which browsers strip before reading the rest), non-ASCII, the sign-in routes, and
    anything longer than MAX_NEXT_LENGTH.
    """
    if not isinstance(candidate, str) or not 1 <= len(candidate) <= MAX_NEXT_LENGTH:
        return FALLBACK_NEXT
    if not all("!" <= ch <= "~" for ch in candidate) or "\\" in candidate:
        return FALLBACK_NEXT
    if not candidate.startswith("/") or candidate.startswith("//"):
        return FALLBACK_NEXT
    parts = urlsplit(candidate)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return FALLBACK_NEXT
    if parts.path.startswith(_SIGN_IN_PREFIX) or parts.path == _SIGN_IN_PREFIX.rstrip("/"):
        return FALLBACK_NEXT
    return candidate


@dataclass(frozen=True)
class PendingLogin:
    state: str
    code_verifier: str
    nonce: str
    redirect_uri: str
    next_path: str

    @classmethod
    def start(cls, *, redirect_uri: str, next_path: str) -> PendingLogin:
        # 64 characters of [A-Za-z0-9] for the verifier: within RFC 7636's 43..128.
        return cls(
            state=generate_token(32),
            code_verifier=generate_token(64),
            nonce=generate_token(32),
            redirect_uri=redirect_uri,
            next_path=safe_next(next_path),
        )

    @property
    def code_challenge(self) -> str:
        challenge: str = create_s256_code_challenge(self.code_verifier)
        return challenge


class LoginSealer:
    def __init__(self, secret: str, *, max_age_seconds: int = LOGIN_MAX_AGE_SECONDS) -> None:
        self._fernet = fernet_for(secret, LOGIN_PURPOSE)
        self.max_age_seconds = max_age_seconds

    def seal(self, login: PendingLogin) -> str:
        return self._fernet.encrypt(json.dumps(asdict(login)).encode()).decode("ascii")

    def open(self, sealed: str) -> PendingLogin:
        """The login sealed in `sealed`; SealBroken when it was altered, sealed under another secret
        or is older than max_age_seconds."""
        try:
            payload: Any = json.loads(self._fernet.decrypt(sealed.encode("ascii"), ttl=self.max_age_seconds))
            return PendingLogin(**payload)
        except (InvalidToken, ValueError, UnicodeError, TypeError):
            raise SealBroken("the sign-in cookie is missing, expired or altered") from None
