"""The OIDC issuer over HTTP: discovery (`/.well-known/openid-configuration`) and its JWKS."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import httpx

from nufi.auth.errors import IdentityProviderUnavailable
from nufi.logging import get_logger

DISCOVERY_PATH = "/.well-known/openid-configuration"

_log = get_logger("nufi.auth")


class OidcProvider:
    """Finds the issuer's `jwks_uri` through discovery, then fetches the key set from it.

    The `jwks_uri` is remembered; it is looked up again after a failed key fetch, in case the
    issuer moved its keys. One fetch (discovery and keys together) gives up after `timeout_seconds`
    in all, however slowly the issuer trickles its answer: a hung issuer costs a request that long,
    never more.
    """

    def __init__(
        self,
        issuer: str,
        *,
        timeout_seconds: float = 3.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.issuer = issuer
        # OpenID Connect Discovery §4: the well-known path goes after the issuer minus a trailing slash.
        self.discovery_url = issuer.rstrip("/") + DISCOVERY_PATH
        self.timeout_seconds = timeout_seconds
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_seconds),
            headers={"Accept": "application/json"},
            transport=transport,
        )
        self._jwks_uri: str | None = None

    async def close(self) -> None:
        await self._client.aclose()

    async def fetch_jwks(self) -> Mapping[str, Any]:
        try:
            async with asyncio.timeout(self.timeout_seconds):
                return await self._fetch_jwks()
        except TimeoutError:
            self._jwks_uri = None
            raise IdentityProviderUnavailable(
                f"the identity provider at {self.issuer} did not answer within "
                f"{self.timeout_seconds:g} s (NUFI_OIDC_TIMEOUT_SECONDS); check that it is running"
            ) from None

    async def _fetch_jwks(self) -> Mapping[str, Any]:
        if self._jwks_uri is None:
            self._jwks_uri = await self._discover()
        try:
            return await self._get_json(self._jwks_uri, "key set (JWKS)")
        except IdentityProviderUnavailable:
            self._jwks_uri = None
            raise

    async def _discover(self) -> str:
        document = await self._get_json(self.discovery_url, "discovery document")
        jwks_uri = document.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri:
            raise IdentityProviderUnavailable(
                f"the discovery document at {self.discovery_url} has no jwks_uri; check that "
                "NUFI_OIDC_ISSUER names an OpenID Connect issuer such as "
                "https://keycloak.example.com/realms/super-llm"
            )
        advertised = document.get("issuer")
        if advertised != self.issuer:
            # Tokens carry the issuer the provider believes it has; if that differs from the
            # configured one every token will fail the issuer check, so say why early.
            _log.warning(
                "the identity provider advertises a different issuer than NUFI_OIDC_ISSUER; "
                "tokens will be rejected unless they carry the configured issuer",
                configured=self.issuer,
                advertised=advertised,
            )
        return jwks_uri

    async def _get_json(self, url: str, what: str) -> dict[str, Any]:
        try:
            response = await self._client.get(url)
        except httpx.HTTPError as exc:
            reason = str(exc) or type(exc).__name__
            raise IdentityProviderUnavailable(
                f"cannot fetch the identity provider's {what} from {url}: {reason}. "
                "Check NUFI_OIDC_ISSUER and that the identity provider is running"
            ) from exc
        if response.status_code != 200:
            raise IdentityProviderUnavailable(
                f"the identity provider answered HTTP {response.status_code} for its {what} at {url}; "
                "check NUFI_OIDC_ISSUER (for Keycloak: https://<host>/realms/<realm>)"
            )
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise IdentityProviderUnavailable(
                f"the identity provider's {what} at {url} is not a JSON object; check NUFI_OIDC_ISSUER"
            )
        return body
