"""PKCE (RFC 7636): a fresh verifier per sign-in and its S256 challenge."""

from __future__ import annotations

import base64
import hashlib
import secrets

METHOD = "S256"


def new_verifier() -> str:
    """96 characters of the unreserved set (the RFC allows 43 to 128), from 72 random bytes."""
    return secrets.token_urlsafe(72)


def challenge_of(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
