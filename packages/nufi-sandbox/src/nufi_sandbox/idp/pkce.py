"""Proof Key for Code Exchange (RFC 7636), S256 only: `plain` gives no protection."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

S256 = "S256"
# RFC 7636 §4.1: 43 to 128 characters from the unreserved set.
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")


def s256_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def verifier_matches(verifier: str, challenge: str) -> bool:
    if _VERIFIER.fullmatch(verifier) is None:
        return False
    return hmac.compare_digest(s256_challenge(verifier), challenge)
