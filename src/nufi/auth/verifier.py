"""Bearer token verification against one OIDC issuer (Keycloak realm)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import httpx
import jwt

from nufi.auth.audience import audience_matches, audience_mismatch
from nufi.auth.errors import InvalidToken
from nufi.auth.jwks import SIGNING_ALGORITHM, JwksCache, decode_signed
from nufi.auth.principal import DEFAULT_ADMIN_ROLE, Principal, principal_from_claims
from nufi.auth.provider import OidcProvider
from nufi.auth.verified_tokens import DEFAULT_MAX_ENTRIES, VerifiedTokens
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

    A token that passed is remembered (`verified_tokens`, at most `cache_size` tokens, until its
    `exp`) and not checked again, as long as the issuer still publishes its key. `clock` (epoch
    seconds) is the one both the expiry checks and that cache go by.
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
        cache_size: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.issuer = issuer
        self.audience = audience
        self.role_client = role_client
        self.admin_role = admin_role
        self.leeway_seconds = leeway_seconds
        self.keys = keys
        self.verified_tokens = VerifiedTokens(cache_size, clock=clock)
        self._clock = clock
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
        cache_size: int = DEFAULT_MAX_ENTRIES,
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
            cache_size=cache_size,
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
            cache_size=settings.auth_token_cache_size,
        )

    async def close(self) -> None:
        if self._on_close is not None:
            await self._on_close()

    async def verify(self, token: str) -> Principal:
        """The principal of `token`, from the cache when it was verified before and its key is still
        published (asking the issuer again when the keys are old or the kid unknown), else verified
        in full and remembered."""
        entry = self.verified_tokens.get(token)
        if entry is not None:
            if await self.keys.key(entry.kid) is None:
                self.verified_tokens.revoke(token)
                raise InvalidToken(
                    code="auth.token_unknown_key", params={"kid": entry.kid, "issuer": self.issuer}
                )
            return entry.principal
        principal, claims, kid = await self._verify_fully(token)
        self.verified_tokens.put(token, principal, exp=claims.get("exp"), kid=kid)
        return principal

    def cached(self, token: str) -> Principal | None:
        """The principal of `token` without I/O: only when it was verified, has not expired, and its
        key is among the issuer's current keys (fetched less than their max age ago). None means
        "ask `verify`", which refreshes the keys; it does not mean the token is bad."""
        entry = self.verified_tokens.get(token)
        if entry is None or not self.keys.current(entry.kid):
            return None
        return entry.principal

    def revoke(self, token: str) -> None:
        """Forget that `token` was verified: its next use is verified in full. For tokens the issuer
        ended before their `exp` (a sign-out, a refused refresh)."""
        self.verified_tokens.revoke(token)

    async def _verify_fully(self, token: str) -> tuple[Principal, dict[str, Any], str]:
        header, unverified = _peek(token)
        alg = header.get("alg")
        if alg != SIGNING_ALGORITHM:
            raise InvalidToken(
                code="auth.token_algorithm", params={"alg": alg, "accepted": SIGNING_ALGORITHM}
            )
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise InvalidToken(code="auth.token_no_kid")
        # Checked before the keys are looked at, so a foreign token gets the useful answer and
        # does not make NuFi refetch keys.
        issuer = unverified.get("iss")
        if issuer != self.issuer:
            raise InvalidToken(code="auth.issuer_mismatch", params={"expected": self.issuer, "got": issuer})
        key = await self.keys.key(kid)
        if key is None:
            raise InvalidToken(code="auth.token_unknown_key", params={"kid": kid, "issuer": self.issuer})
        claims = self._decode(token, key, unverified)
        self._check_type(claims)
        if not audience_matches(claims, self.audience):
            assert self.audience is not None
            raise InvalidToken(code="auth.audience_mismatch", params=audience_mismatch(claims, self.audience))
        principal = principal_from_claims(claims, admin_role=self.admin_role, role_client=self.role_client)
        if not principal.username:
            raise InvalidToken(code="auth.token_no_user")
        return principal, claims, kid

    def _decode(self, token: str, key: Any, unverified: Mapping[str, Any]) -> dict[str, Any]:
        try:
            claims = decode_signed(
                token,
                key,
                issuer=self.issuer,
                require=("exp", "iss"),
                # Times are checked below on the verifier's clock, which the cache also goes by.
                options={
                    "verify_aud": False,
                    "verify_exp": False,
                    "verify_nbf": False,
                    "verify_iat": False,
                },
            )
            _check_times(claims, now=self._clock(), leeway=self.leeway_seconds)
        except jwt.ExpiredSignatureError:
            at = _when(unverified.get("exp"))
            if at is None:
                raise InvalidToken(code="auth.token_expired") from None
            raise InvalidToken(code="auth.token_expired_at", params={"at": at}) from None
        except jwt.ImmatureSignatureError:
            raise InvalidToken(code="auth.token_not_yet_valid") from None
        except jwt.InvalidSignatureError:
            raise InvalidToken(code="auth.token_signature_invalid") from None
        except jwt.MissingRequiredClaimError as exc:
            raise InvalidToken(code="auth.token_claim_missing", params={"claim": exc.claim}) from None
        except jwt.InvalidIssuerError:
            raise InvalidToken(
                code="auth.issuer_mismatch_expected", params={"expected": self.issuer}
            ) from None
        except jwt.PyJWTError as exc:
            # PyJWT's own words for the fault, shown verbatim inside the sentence.
            raise InvalidToken(code="auth.token_invalid", params={"reason": str(exc)}) from None
        return claims

    @staticmethod
    def _check_type(claims: Mapping[str, Any]) -> None:
        typ = claims.get("typ")
        if typ is not None and (not isinstance(typ, str) or typ.lower() != _ACCESS_TOKEN_TYPE):
            raise InvalidToken(code="auth.token_type", params={"typ": typ})


def _peek(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims, unverified: only for choosing the key and explaining a rejection."""
    try:
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, options={"verify_signature": False})
    except (jwt.PyJWTError, ValueError, TypeError):
        raise InvalidToken(code="auth.token_malformed") from None
    if not isinstance(claims, dict):
        raise InvalidToken(code="auth.token_payload_not_object")
    return header, claims


def _check_times(claims: Mapping[str, Any], *, now: float, leeway: float) -> None:
    """PyJWT's `iat`, `nbf` and `exp` checks, with its errors, but at `now` instead of the wall clock
    PyJWT would read."""
    if "iat" in claims and _whole_seconds(claims["iat"], "Issued At claim (iat)") > now + leeway:
        raise jwt.ImmatureSignatureError("The token is not yet valid (iat)")
    if "nbf" in claims and _whole_seconds(claims["nbf"], "Not Before claim (nbf)") > now + leeway:
        raise jwt.ImmatureSignatureError("The token is not yet valid (nbf)")
    if "exp" in claims and _whole_seconds(claims["exp"], "Expiration Time claim (exp)") <= now - leeway:
        raise jwt.ExpiredSignatureError("Signature has expired")


def _whole_seconds(value: Any, claim: str) -> int:
    try:
        return int(value)
    except (ValueError, TypeError, OverflowError):
        raise jwt.DecodeError(f"{claim} must be an integer.") from None


def _when(exp: object) -> str | None:
    if isinstance(exp, int | float) and not isinstance(exp, bool):
        try:
            return datetime.fromtimestamp(exp, tz=UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    return None
