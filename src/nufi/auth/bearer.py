"""From an `Authorization` header to a Principal: the one entry point every face uses."""

from __future__ import annotations

from nufi.auth.errors import InvalidToken
from nufi.auth.principal import Principal
from nufi.auth.verifier import TokenVerifier
from nufi.errors import Unauthorized

NOT_CONFIGURED = (
    "authentication is not configured: set NUFI_OIDC_ISSUER to the OIDC issuer, e.g. "
    "https://keycloak.example.com/realms/super-llm; until then no request can be authenticated"
)
# Far above any real access token; refusing early keeps junk away from the JWT parser.
MAX_TOKEN_LENGTH = 16 * 1024


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1).

    Raises Unauthorized when there is no header or another scheme, InvalidToken when the Bearer
    credentials are empty or not token-shaped.
    """
    if authorization is None or not authorization.strip():
        raise Unauthorized("missing bearer token: send 'Authorization: Bearer <access token>'")
    scheme, _, credentials = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise Unauthorized(
            f"the Authorization header uses the {scheme[:20]!r} scheme; NuFi expects "
            "'Authorization: Bearer <access token>'"
        )
    token = credentials.strip()
    if not token:
        raise InvalidToken("the Authorization header says Bearer but carries no token")
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidToken(f"the bearer token is longer than {MAX_TOKEN_LENGTH} characters")
    if not _is_token68(token):
        raise InvalidToken("the bearer token contains characters a JWT never has")
    return token


def _is_token68(token: str) -> bool:
    # RFC 6750 b64token: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" followed by "=" padding.
    body = token.rstrip("=")
    return bool(body) and all(c.isascii() and (c.isalnum() or c in "-._~+/") for c in body)


async def authenticate(verifier: TokenVerifier | None, authorization: str | None) -> Principal:
    """The caller behind `authorization`, checked by `verifier`.

    With no verifier (no issuer configured) every request is refused: NuFi never lets anyone in
    because authentication was left unset.
    """
    if verifier is None:
        raise Unauthorized(NOT_CONFIGURED)
    return await verifier.verify(bearer_token(authorization))
