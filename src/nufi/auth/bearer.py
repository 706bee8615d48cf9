"""From an `Authorization` header to a Principal: the one entry point every face uses."""

from __future__ import annotations

import re
from collections.abc import Sequence

from nufi.auth.errors import AmbiguousCredentials, InvalidToken
from nufi.auth.principal import Principal
from nufi.auth.verifier import TokenVerifier
from nufi.errors import Unauthorized
from nufi.messages import render

# In English, for logs and start-up messages; a caller gets `auth.not_configured` in its language.
NOT_CONFIGURED = render("en", "auth.not_configured")
# Far above any real access token; refusing early keeps junk away from the JWT parser.
MAX_TOKEN_LENGTH = 16 * 1024


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1).

    Raises Unauthorized when there is no header or another scheme, InvalidToken when the Bearer
    credentials are empty or not token-shaped.
    """
    if authorization is None or not authorization.strip():
        raise Unauthorized(code="auth.bearer_missing")
    scheme, _, credentials = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise Unauthorized(code="auth.scheme_wrong", params={"scheme": scheme[:20]})
    token = credentials.strip()
    if not token:
        raise InvalidToken(code="auth.bearer_empty")
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidToken(code="auth.token_too_long", params={"max": MAX_TOKEN_LENGTH})
    if not _is_token68(token):
        raise InvalidToken(code="auth.token_bad_characters")
    return token


# RFC 6750 b64token: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/", then "=" padding. A compiled
# pattern, since every request's token (a kilobyte or more) passes through here.
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def _is_token68(token: str) -> bool:
    return _TOKEN68.fullmatch(token) is not None


def single_authorization(values: Sequence[str]) -> str | None:
    """The one `Authorization` header among `values` (all the request carries), or None.

    Raises AmbiguousCredentials (400) for two or more: RFC 9110 allows the field once, and
    accepting whichever comes first would let a token hide behind another.
    """
    if len(values) > 1:
        raise AmbiguousCredentials(code="auth.headers_ambiguous", params={"count": len(values)})
    return values[0] if values else None


async def authenticate(
    verifier: TokenVerifier | None, authorization: str | Sequence[str] | None
) -> Principal:
    """The caller behind `authorization` (the header's value, or every value the request
    carries), checked by `verifier`.

    With no verifier (no issuer configured) every request is refused: NuFi never lets anyone in
    because authentication was left unset.
    """
    header = (
        authorization
        if authorization is None or isinstance(authorization, str)
        else single_authorization(authorization)
    )
    if verifier is None:
        raise Unauthorized(code="auth.not_configured")
    return await verifier.verify(bearer_token(header))
