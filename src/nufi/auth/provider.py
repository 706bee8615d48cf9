"""The OIDC issuer over HTTP: discovery (`/.well-known/openid-configuration`) and its JWKS."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import httpx

from nufi.auth.errors import IdentityProviderUnavailable
from nufi.logging import get_logger
from nufi.messages import Message

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
                code="idp.timed_out", params={"issuer": self.issuer, "seconds": self.timeout_seconds}
            ) from None

    async def _fetch_jwks(self) -> Mapping[str, Any]:
        if self._jwks_uri is None:
            self._jwks_uri = await self._discover()
        try:
            return await self._get_json(self._jwks_uri, Message("idp.what.jwks"))
        except IdentityProviderUnavailable:
            self._jwks_uri = None
            raise

    async def _discover(self) -> str:
        document = await self._get_json(self.discovery_url, Message("idp.what.discovery"))
        jwks_uri = document.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri:
            raise IdentityProviderUnavailable(code="idp.no_jwks_uri", params={"url": self.discovery_url})
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

    async def _get_json(self, url: str, what: Message) -> dict[str, Any]:
        try:
            response = await self._client.get(url)
        except httpx.HTTPError as exc:
            reason = str(exc) or type(exc).__name__
            raise IdentityProviderUnavailable(
                code="idp.fetch_failed", params={"what": what, "url": url, "reason": reason}
            ) from exc
        if response.status_code != 200:
            raise IdentityProviderUnavailable(
                code="idp.http_status", params={"status": response.status_code, "what": what, "url": url}
            )
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise IdentityProviderUnavailable(code="idp.not_json", params={"what": what, "url": url})
        return body
