"""Whether a token was meant for NuFi.

Keycloak only puts an `aud` claim in an access token when a mapper adds one, and often omits it;
the client the token was issued to is always in `azp`. So the configured audience may match either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nufi.messages import Message


def token_audiences(claims: Mapping[str, Any]) -> list[str]:
    """The `aud` claim as a list, whether the token carries a string, a list or nothing."""
    aud = claims.get("aud")
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list):
        return [entry for entry in aud if isinstance(entry, str)]
    return []


def audience_matches(claims: Mapping[str, Any], audience: str | None) -> bool:
    """True when no audience is required, or it is in `aud` or equals `azp`."""
    if audience is None:
        return True
    return audience in token_audiences(claims) or claims.get("azp") == audience


def audience_mismatch(claims: Mapping[str, Any], audience: str) -> dict[str, object]:
    """The params of `auth.audience_mismatch`: the audience wanted and what the token names instead."""
    aud = token_audiences(claims)
    azp = claims.get("azp")
    none = Message("auth.none")
    return {
        "audience": audience,
        "aud": ", ".join(repr(a) for a in aud) if aud else none,
        "azp": repr(azp) if isinstance(azp, str) else none,
    }
