"""The issuer's signing keys, cached, and refetched when a token names a key we do not know.

Identity providers rotate keys by publishing a new one and signing with it, so an unknown `kid` is
the cue to refetch. Every fetch is rate limited: tokens with made-up key ids, or a flood of
requests while the identity provider is down, must not turn NuFi into a traffic amplifier against it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey
from jwt.algorithms import RSAAlgorithm
from jwt.exceptions import InvalidKeyError
from jwt.types import Options

from nufi.auth.errors import IdentityProviderUnavailable
from nufi.logging import get_logger

JwksFetcher = Callable[[], Awaitable[Mapping[str, Any]]]

SIGNING_ALGORITHM = "RS256"

_log = get_logger("nufi.auth")


def decode_signed(
    token: str,
    key: Any,
    *,
    issuer: str | None,
    require: Sequence[str],
    options: Options | None = None,
    **checks: Any,
) -> dict[str, Any]:
    """The claims of a token from `issuer` signed by `key`, with the one algorithm NuFi accepts and
    `require`d claims present; `options` and `checks` are PyJWT's own (audience, leeway). Raises
    PyJWT's errors, which each caller words for its reader."""
    claims: dict[str, Any] = jwt.decode(
        token,
        key,
        algorithms=[SIGNING_ALGORITHM],
        issuer=issuer,
        options={**(options or {}), "require": list(require)},
        **checks,
    )
    return claims


def signing_keys(jwks: Mapping[str, Any]) -> dict[str, RSAPublicKey]:
    """The RS256 signature keys of a JWKS document, by `kid`.

    Encryption keys (`use: enc`, which Keycloak publishes next to its signing key), other key types
    and keys without a `kid` are left out; a key that cannot be loaded is skipped, not fatal.
    """
    keys = jwks.get("keys")
    if not isinstance(keys, list):
        raise IdentityProviderUnavailable(code="idp.jwks_no_keys")
    found: dict[str, RSAPublicKey] = {}
    for jwk in keys:
        if not isinstance(jwk, Mapping) or not _is_rs256_signing_key(jwk):
            continue
        kid = jwk["kid"]
        try:
            loaded = RSAAlgorithm.from_jwk(dict(jwk))
        except (InvalidKeyError, ValueError, TypeError, KeyError) as exc:
            _log.warning("skipping a signing key that cannot be loaded", kid=kid, error=str(exc))
            continue
        found[kid] = loaded.public_key() if isinstance(loaded, RSAPrivateKey) else loaded
    return found


def _is_rs256_signing_key(jwk: Mapping[str, Any]) -> bool:
    return (
        jwk.get("kty") == "RSA"
        and jwk.get("use", "sig") == "sig"
        and jwk.get("alg", SIGNING_ALGORITHM) == SIGNING_ALGORITHM
        and isinstance(jwk.get("kid"), str)
        and bool(jwk.get("kid"))
    )


class JwksCache:
    """Signing keys by `kid`, loaded on first use.

    - an unknown `kid` triggers a refetch; if that fails while keys are cached, the token is simply
      not signed by a known key (401), since the cached keys still verify every token they signed;
    - keys older than `max_age` seconds are refetched so that keys the issuer withdrew stop being
      accepted; if that refetch fails the old keys keep serving (the issuer may just be restarting);
    - after any attempt, successful or not, the issuer is not asked again for `min_refresh_interval`
      seconds, whatever the reason to ask (no keys yet, keys too old, an unknown `kid`): while it is
      down, requests get the cached keys, or the last failure, without a connection each;
    - concurrent callers share one fetch.
    """

    def __init__(
        self,
        fetch: JwksFetcher,
        *,
        min_refresh_interval: float = 10.0,
        max_age: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self._min_refresh_interval = min_refresh_interval
        self._max_age = max_age
        self._clock = clock
        self._keys: dict[str, RSAPublicKey] | None = None
        self._fetched_at = 0.0
        self._last_attempt: float | None = None
        self._completed = 0
        self._loads = 0
        self._last_error: IdentityProviderUnavailable | None = None
        self._lock = asyncio.Lock()

    @property
    def fetch_count(self) -> int:
        """How many times keys were loaded successfully (for tests and diagnostics)."""
        return self._loads

    def current(self, kid: str) -> bool:
        """Whether `kid` is among keys young enough to be used without asking the issuer: False when
        there are none yet, they are due for refetch (older than `max_age`) or `kid` is not one of them.
        Never fetches; `key` is the call that does."""
        if self._keys is None or self._clock() - self._fetched_at >= self._max_age:
            return False
        return kid in self._keys

    async def key(self, kid: str) -> RSAPublicKey | None:
        """The signing key named `kid`, or None when the issuer does not publish it.

        Raises IdentityProviderUnavailable when keys are needed and cannot be fetched.
        """
        if self._keys is None:
            if not self._may_refresh() and self._last_error is not None:
                # Backing off: the last attempt failed a moment ago, so this one would too.
                raise self._last_error
            await self._refresh()
        elif self._clock() - self._fetched_at >= self._max_age and self._may_refresh():
            try:
                await self._refresh()
            except IdentityProviderUnavailable as exc:
                _log.warning("keeping cached signing keys; refetching them failed", error=exc.detail)
        keys = self._keys or {}
        if kid not in keys and self._may_refresh():
            try:
                await self._refresh()
            except IdentityProviderUnavailable as exc:
                # Keys are at hand and this token is signed by none of them: it is refused (401) as
                # it would be within the back-off, not answered 503 once per interval.
                _log.warning("unknown signing key and the issuer cannot be asked", kid=kid, error=exc.detail)
            keys = self._keys or {}
        return keys.get(kid)

    def _may_refresh(self) -> bool:
        if self._last_attempt is None:
            return True
        return self._clock() - self._last_attempt >= self._min_refresh_interval

    async def _refresh(self) -> None:
        seen = self._completed
        async with self._lock:
            if self._completed != seen:
                # A fetch finished while this caller waited for the lock: share its outcome
                # instead of queueing one more request behind an issuer that may be down.
                if self._last_error is not None:
                    raise self._last_error
                return
            try:
                keys = signing_keys(await self._fetch())
            except IdentityProviderUnavailable as exc:
                # The back-off runs from the end of the attempt: a hung issuer that took the whole
                # timeout to fail is left alone for the full interval afterwards.
                self._last_attempt = self._clock()
                self._last_error = exc
                self._completed += 1
                raise
            # Anything else (a cancelled request, say) is not an outcome: the waiters try themselves.
            self._last_attempt = self._clock()
            self._last_error = None
            self._completed += 1
            self._keys = keys
            self._fetched_at = self._clock()
            self._loads += 1
            _log.debug("loaded signing keys", kids=sorted(keys))
