"""Bearer token verification against one OIDC issuer (Keycloak realm)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import httpx
import jwt

from nufi.auth.audience import audience_matches, audience_mismatch_detail
from nufi.auth.errors import InvalidToken
from nufi.auth.jwks import SIGNING_ALGORITHM, JwksCache
from nufi.auth.principal import DEFAULT_ADMIN_ROLE, Principal, principal_from_claims
from nufi.auth.provider import OidcProvider
from nufi.config import Settings

DEFAULT_LEEWAY_SECONDS = 30.0
# Keycloak's own claim telling access tokens from ID and refresh tokens.
_ACCESS_TOKEN_TYPE = "bearer"


class TokenVerifier:
    """Turns an access token into a Principal, or raises InvalidToken saying why not.

    Checks: RS256 only, signature by a key the issuer publishes (picked by `kid`), `iss` equal to
    the configured issuer, `exp`/`nbf` with `leeway_seconds` of clock skew, the audience (in `aud`
    or equal to `azp`) when one is configured, and Keycloak's `typ` when present.
    Roles are the realm roles and those of `role_client` only (see `principal_from_claims`).
    Raises IdentityProviderUnavailable when the issuer's keys cannot be fetched.
    """

    def __init__(
        self,
        *,
        issuer: str,
        keys: JwksCache,
        audience: str | None = None,
        role_client: str | None = None,
        admin_role: str = DEFAULT_ADMIN_ROLE,
        leeway_seconds: float = DEFAULT_LEEWAY_SECONDS,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.issuer = issuer
        self.audience = audience
        self.role_client = role_client
        self.admin_role = admin_role
        self.leeway_seconds = leeway_seconds
        self.keys = keys
        self._on_close = on_close

    @classmethod
    def for_issuer(
        cls,
        issuer: str,
        *,
        audience: str | None = None,
        role_client: str | None = None,
        admin_role: str = DEFAULT_ADMIN_ROLE,
        leeway_seconds: float = DEFAULT_LEEWAY_SECONDS,
        min_refresh_interval: float = 10.0,
        timeout_seconds: float = 3.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> TokenVerifier:
        """A verifier that finds the issuer's keys through OIDC discovery. Close it when done."""
        provider = OidcProvider(issuer, timeout_seconds=timeout_seconds, transport=transport)
        return cls(
            issuer=issuer,
            keys=JwksCache(provider.fetch_jwks, min_refresh_interval=min_refresh_interval),
            audience=audience,
            role_client=role_client,
            admin_role=admin_role,
            leeway_seconds=leeway_seconds,
            on_close=provider.close,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenVerifier | None:
        """The verifier for NUFI_OIDC_ISSUER, or None when no issuer is configured.

        Client roles count only from NUFI_OIDC_ROLE_CLIENT, or when that is unset from the client
        named by NUFI_OIDC_AUDIENCE; with neither, only realm roles count.
        """
        if settings.oidc_issuer is None:
            return None
        return cls.for_issuer(
            settings.oidc_issuer,
            audience=settings.oidc_audience,
            role_client=settings.oidc_role_client or settings.oidc_audience,
            admin_role=settings.admin_role,
            timeout_seconds=settings.oidc_timeout_seconds,
        )

    async def close(self) -> None:
        if self._on_close is not None:
            await self._on_close()

    async def verify(self, token: str) -> Principal:
        header, unverified = _peek(token)
        alg = header.get("alg")
        if alg != SIGNING_ALGORITHM:
            raise InvalidToken(
                f"token algorithm {alg!r} is not accepted; NuFi accepts {SIGNING_ALGORITHM}-signed "
                "access tokens from its identity provider only"
            )
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise InvalidToken(
                "token header names no signing key (kid); send an access token from the issuer"
            )
        # Checked before the keys are looked at, so a foreign token gets the useful answer and
        # does not make NuFi refetch keys.
        issuer = unverified.get("iss")
        if issuer != self.issuer:
            raise InvalidToken(f"issuer mismatch: expected {self.issuer!r}, got {issuer!r}")
        key = await self.keys.key(kid)
        if key is None:
            raise InvalidToken(
                f"token signed by an unknown key (kid {kid!r}): {self.issuer} does not publish it"
            )
        claims = self._decode(token, key, unverified)
        self._check_type(claims)
        if not audience_matches(claims, self.audience):
            assert self.audience is not None
            raise InvalidToken(audience_mismatch_detail(claims, self.audience))
        principal = principal_from_claims(claims, admin_role=self.admin_role, role_client=self.role_client)
        if not principal.username:
            raise InvalidToken("token names no user: it has neither 'sub' nor 'preferred_username'")
        return principal

    def _decode(self, token: str, key: Any, unverified: Mapping[str, Any]) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[SIGNING_ALGORITHM],
                issuer=self.issuer,
                leeway=self.leeway_seconds,
                options={"require": ["exp", "iss"], "verify_aud": False},
            )
        except jwt.ExpiredSignatureError:
            raise InvalidToken(f"token expired{_when(unverified.get('exp'))}; sign in again") from None
        except jwt.ImmatureSignatureError:
            raise InvalidToken(
                "token not yet valid (nbf or iat lies in the future); check the clocks of NuFi and "
                "the identity provider"
            ) from None
        except jwt.InvalidSignatureError:
            raise InvalidToken("token signature is invalid: the token was altered or forged") from None
        except jwt.MissingRequiredClaimError as exc:
            raise InvalidToken(f"token lacks the required {exc.claim!r} claim") from None
        except jwt.InvalidIssuerError:
            raise InvalidToken(f"issuer mismatch: expected {self.issuer!r}") from None
        except jwt.PyJWTError as exc:
            raise InvalidToken(f"token is invalid: {exc}") from None
        return claims

    @staticmethod
    def _check_type(claims: Mapping[str, Any]) -> None:
        typ = claims.get("typ")
        if typ is not None and (not isinstance(typ, str) or typ.lower() != _ACCESS_TOKEN_TYPE):
            raise InvalidToken(
                f"token type {typ!r} is not an access token; send the access_token, not an ID or "
                "refresh token"
            )


def _peek(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims, unverified: only for choosing the key and explaining a rejection."""
    try:
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, options={"verify_signature": False})
    except (jwt.PyJWTError, ValueError, TypeError):
        raise InvalidToken(
            "token is malformed: expected a signed JWT (three base64url parts separated by dots)"
        ) from None
    if not isinstance(claims, dict):
        raise InvalidToken("token is malformed: its payload is not a JSON object")
    return header, claims


def _when(exp: object) -> str:
    if isinstance(exp, int | float) and not isinstance(exp, bool):
        try:
            return " at " + datetime.fromtimestamp(exp, tz=UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return ""
    return ""
