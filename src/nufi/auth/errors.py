"""Authentication errors: which 401 and 503 answers the auth layer gives."""

from __future__ import annotations

from collections.abc import Mapping

from nufi.errors import DependencyUnavailable, NufiError, Unauthorized

IDENTITY_PROVIDER = "identity-provider"


class InvalidToken(Unauthorized):
    """A bearer token was presented but cannot be accepted (malformed, expired, badly signed, ...).

    Distinct from a missing token because RFC 6750 wants `error="invalid_token"` in the
    `WWW-Authenticate` challenge only when a token was sent.
    """

    challenge = 'Bearer error="invalid_token"'


class AmbiguousCredentials(NufiError):
    """The request carries more than one `Authorization` header: which one counts is anybody's
    guess (a proxy may read the first, a server the last), so NuFi reads neither."""

    status = 400
    title = "Bad request"
    type = "bad-request"


class IdentityProviderUnavailable(DependencyUnavailable):
    """The OIDC issuer's discovery document or keys cannot be fetched: a 503, not the caller's fault."""

    type = "identity-provider-unavailable"
    title = "Identity provider unavailable"

    def __init__(self, *, code: str, params: Mapping[str, object] | None = None) -> None:
        super().__init__(code=code, params=params, dependency=IDENTITY_PROVIDER)


def bearer_challenge(error: Unauthorized) -> str:
    """The `WWW-Authenticate` value that goes with a 401."""
    return InvalidToken.challenge if isinstance(error, InvalidToken) else "Bearer"
