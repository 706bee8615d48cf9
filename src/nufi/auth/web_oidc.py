"""NuFi as an OpenID Connect relying party for the dashboard: authorization code + PKCE (S256).

The token requests are plain httpx, like the rest of the issuer gateway: one shared client, no
per-user state in it (Authlib's OAuth2 client remembers the last token it fetched), the same
timeout and error handling as discovery and keys. Authlib provides the PKCE and random parts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
import jwt

from nufi.auth.errors import IdentityProviderUnavailable
from nufi.auth.jwks import decode_signed
from nufi.auth.principal import Principal
from nufi.auth.provider import DISCOVERY_PATH
from nufi.auth.verifier import TokenVerifier
from nufi.auth.web_login import PendingLogin
from nufi.auth.web_tokens import TokenSet
from nufi.errors import Unauthorized
from nufi.messages import Message

SCOPE = "openid profile email"
# Endpoints rarely move; an hour bounds how long a moved one is missed. A failure forgets them.
METADATA_MAX_AGE_SECONDS = 3600.0
# An answer without expires_in: assume the short lifetime Keycloak gives by default.
DEFAULT_EXPIRES_IN = 300
_DISCOVERY = Message("idp.what.discovery")


class IssuerRefused(Unauthorized):
    """The issuer answered, and said no: a code or refresh token it does not (any longer) accept,
    or a token NuFi cannot accept. The sign-in or session is over; signing in again is the fix."""

    def __init__(self, *, code: str, params: Mapping[str, object] | None = None, error: str = "") -> None:
        super().__init__(code=code, params=params)
        self.error = error


@dataclass(frozen=True)
class ProviderMetadata:
    authorization_endpoint: str
    token_endpoint: str
    end_session_endpoint: str | None


class DashboardClient:
    """The confidential client NUFI_OIDC_CLIENT_ID / NUFI_OIDC_CLIENT_SECRET at the issuer that
    `verifier` checks tokens of. Close it when done."""

    def __init__(
        self,
        *,
        verifier: TokenVerifier,
        client_id: str,
        client_secret: str | None,
        timeout_seconds: float = 3.0,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.verifier = verifier
        self.issuer = verifier.issuer
        self.client_id = client_id
        self._client_secret = client_secret
        self.timeout_seconds = timeout_seconds
        self._clock = clock
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_seconds),
            headers={"Accept": "application/json"},
            transport=transport,
        )
        self._metadata: ProviderMetadata | None = None
        self._metadata_at = 0.0

    async def close(self) -> None:
        await self._client.aclose()

    async def authorization_url(self, login: PendingLogin) -> str:
        metadata = await self.metadata()
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": login.redirect_uri,
            "scope": SCOPE,
            "state": login.state,
            "nonce": login.nonce,
            "code_challenge": login.code_challenge,
            "code_challenge_method": "S256",
        }
        separator = "&" if "?" in metadata.authorization_endpoint else "?"
        return metadata.authorization_endpoint + separator + urlencode(query)

    async def exchange(self, code: str, login: PendingLogin) -> tuple[TokenSet, Principal]:
        """The tokens for an authorization code, and whom they speak for; IssuerRefused when the
        issuer refuses the code or its tokens do not hold up."""
        tokens = await self._token_request(
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": login.redirect_uri,
                "code_verifier": login.code_verifier,
            }
        )
        if tokens.id_token is None:
            raise IssuerRefused(code="issuer.no_id_token")
        identity = await self._check_id_token(tokens.id_token, nonce=login.nonce)
        principal = await self.principal(tokens)
        if identity.get("sub") != principal.subject:
            raise IssuerRefused(code="issuer.users_differ")
        return tokens, principal

    async def refresh(self, tokens: TokenSet) -> TokenSet:
        if tokens.refresh_token is None:
            raise IssuerRefused(code="issuer.no_refresh_token")
        fresh = await self._token_request(
            {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}
        )
        return tokens.refreshed(fresh)

    async def principal(self, tokens: TokenSet) -> Principal:
        """Whom the access token speaks for, checked exactly as a bearer token of the API is, so
        roles mean the same in the dashboard. InvalidToken when it does not hold up."""
        return await self.verifier.verify(tokens.access_token)

    async def end_session_url(
        self, *, id_token_hint: str | None, post_logout_redirect_uri: str
    ) -> str | None:
        """Where to send the browser so the issuer ends its session too; None when the issuer has
        no end_session_endpoint (or cannot be reached: signing out of NuFi must still work)."""
        try:
            metadata = await self.metadata()
        except IdentityProviderUnavailable:
            return None
        if metadata.end_session_endpoint is None:
            return None
        query = {"client_id": self.client_id, "post_logout_redirect_uri": post_logout_redirect_uri}
        if id_token_hint:
            query["id_token_hint"] = id_token_hint
        separator = "&" if "?" in metadata.end_session_endpoint else "?"
        return metadata.end_session_endpoint + separator + urlencode(query)

    async def metadata(self) -> ProviderMetadata:
        if self._metadata is not None and self._clock() - self._metadata_at < METADATA_MAX_AGE_SECONDS:
            return self._metadata
        document = await self._bounded(self._get_json(self.issuer.rstrip("/") + DISCOVERY_PATH))
        authorization = document.get("authorization_endpoint")
        token = document.get("token_endpoint")
        if not isinstance(authorization, str) or not isinstance(token, str):
            raise IdentityProviderUnavailable(code="idp.no_endpoints", params={"issuer": self.issuer})
        end_session = document.get("end_session_endpoint")
        self._metadata = ProviderMetadata(
            authorization, token, end_session if isinstance(end_session, str) else None
        )
        self._metadata_at = self._clock()
        return self._metadata

    async def _token_request(self, form: dict[str, str]) -> TokenSet:
        metadata = await self.metadata()
        body = await self._bounded(self._post_token(metadata.token_endpoint, form))
        access = body.get("access_token")
        if not isinstance(access, str) or not access:
            raise IssuerRefused(code="issuer.no_access_token")
        expires_in = body.get("expires_in", DEFAULT_EXPIRES_IN)
        if not isinstance(expires_in, int | float) or isinstance(expires_in, bool):
            expires_in = DEFAULT_EXPIRES_IN
        refresh = body.get("refresh_token")
        id_token = body.get("id_token")
        return TokenSet(
            access_token=access,
            access_expires_at=self._clock() + float(expires_in),
            refresh_token=refresh if isinstance(refresh, str) and refresh else None,
            id_token=id_token if isinstance(id_token, str) and id_token else None,
        )

    async def _post_token(self, url: str, form: dict[str, str]) -> dict[str, Any]:
        # client_secret_post rather than Basic: Basic wants the id and secret form-encoded first
        # (RFC 6749 §2.3.1), which not every server undoes; Keycloak accepts both.
        data = {**form, "client_id": self.client_id}
        if self._client_secret is not None:
            data["client_secret"] = self._client_secret
        try:
            response = await self._client.post(url, data=data)
        except httpx.HTTPError as exc:
            self._metadata = None
            raise IdentityProviderUnavailable(
                code="idp.token_unreachable", params={"url": url, "reason": str(exc) or type(exc).__name__}
            ) from exc
        body = _json_object(response)
        if response.status_code >= 500 or body is None:
            self._metadata = None
            raise IdentityProviderUnavailable(
                code="idp.token_status", params={"url": url, "status": response.status_code}
            )
        if response.status_code != 200:
            error = str(body.get("error", ""))
            description = str(body.get("error_description", "")) or error or f"HTTP {response.status_code}"
            # The issuer's own description of the refusal, shown verbatim inside the sentence.
            if error == "invalid_client":
                raise IssuerRefused(
                    code="issuer.refused_client", params={"description": description}, error=error
                )
            raise IssuerRefused(code="issuer.refused", params={"description": description}, error=error)
        return body

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            response = await self._client.get(url)
        except httpx.HTTPError as exc:
            raise IdentityProviderUnavailable(
                code="idp.fetch_failed",
                params={"what": _DISCOVERY, "url": url, "reason": str(exc) or type(exc).__name__},
            ) from exc
        body = _json_object(response)
        if response.status_code != 200 or body is None:
            raise IdentityProviderUnavailable(
                code="idp.http_status",
                params={"status": response.status_code, "what": _DISCOVERY, "url": url},
            )
        return body

    async def _bounded(self, call: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        # One exchange with the issuer, however slowly it trickles, ends within the timeout.
        try:
            async with asyncio.timeout(self.timeout_seconds):
                return await call
        except TimeoutError:
            self._metadata = None
            raise IdentityProviderUnavailable(
                code="idp.timed_out", params={"issuer": self.issuer, "seconds": self.timeout_seconds}
            ) from None

    async def _check_id_token(self, id_token: str, *, nonce: str) -> Mapping[str, Any]:
        """OIDC Core §3.1.3.7: signed by the issuer, for this client, unexpired, with our nonce (so a
        token minted for another sign-in cannot be slipped into this one)."""
        try:
            kid = jwt.get_unverified_header(id_token).get("kid")
        except jwt.PyJWTError:
            raise IssuerRefused(code="issuer.id_token_malformed") from None
        key = await self.verifier.keys.key(kid) if isinstance(kid, str) else None
        if key is None:
            raise IssuerRefused(code="issuer.id_token_unknown_key")
        try:
            claims = decode_signed(
                id_token,
                key,
                issuer=self.issuer,
                require=("exp", "iss", "aud", "sub"),
                audience=self.client_id,
                leeway=self.verifier.leeway_seconds,
            )
        except jwt.PyJWTError as exc:
            raise IssuerRefused(code="issuer.id_token_invalid", params={"reason": str(exc)}) from None
        if claims.get("nonce") != nonce:
            raise IssuerRefused(code="issuer.nonce_mismatch")
        return claims


def _json_object(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
