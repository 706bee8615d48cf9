"""Authentication and authorization: who is calling (OIDC bearer tokens) and what they may do."""

from nufi.auth.audience import audience_matches
from nufi.auth.bearer import NOT_CONFIGURED, authenticate, bearer_token
from nufi.auth.errors import IdentityProviderUnavailable, InvalidToken, bearer_challenge
from nufi.auth.jwks import JwksCache, JwksFetcher
from nufi.auth.policy import require_admin, require_user
from nufi.auth.principal import DEFAULT_ADMIN_ROLE, Principal, principal_from_claims
from nufi.auth.provider import OidcProvider
from nufi.auth.verifier import TokenVerifier

__all__ = [
    "DEFAULT_ADMIN_ROLE",
    "NOT_CONFIGURED",
    "IdentityProviderUnavailable",
    "InvalidToken",
    "JwksCache",
    "JwksFetcher",
    "OidcProvider",
    "Principal",
    "TokenVerifier",
    "audience_matches",
    "authenticate",
    "bearer_challenge",
    "bearer_token",
    "principal_from_claims",
    "require_admin",
    "require_user",
]
