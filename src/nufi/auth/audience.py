"""Whether a token was meant for NuFi.

Keycloak only puts an `aud` claim in an access token when a mapper adds one, and often omits it;
the client the token was issued to is always in `azp`. So the configured audience may match either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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


def audience_mismatch_detail(claims: Mapping[str, Any], audience: str) -> str:
    aud = token_audiences(claims)
    azp = claims.get("azp")
    shown_aud = ", ".join(repr(a) for a in aud) if aud else "none"
    shown_azp = repr(azp) if isinstance(azp, str) else "none"
    return (
        f"token is not meant for NuFi: audience {audience!r} is neither in aud ({shown_aud}) "
        f"nor the authorized party azp ({shown_azp}); request a token for that client, or add an "
        "audience mapper in the identity provider"
    )
