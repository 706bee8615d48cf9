"""Minting tokens shaped like Keycloak's: access (RS256, `typ` Bearer), ID (`typ` ID) and refresh
(HS512, `typ` Refresh), and the token endpoint's JSON answer around them."""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nufi_sandbox.idp.keys import RealmKeys
from nufi_sandbox.idp.realm import (
    ACCOUNT_CLIENT_ID,
    ACCOUNT_ROLES,
    ClientSpec,
    RealmSpec,
    UserSpec,
    default_realm_roles,
    subject_of,
)

_ALWAYS_GRANTED_SCOPES = ("profile", "email")


@dataclass(frozen=True)
class Subject:
    """Whom a token speaks for: a user, or a client's service account."""

    id: str
    username: str
    realm_roles: list[str]
    client_roles: dict[str, list[str]] = field(default_factory=dict)
    email: str | None = None
    given_name: str | None = None
    family_name: str | None = None


def user_subject(realm: str, user: UserSpec) -> Subject:
    client_roles = {ACCOUNT_CLIENT_ID: list(ACCOUNT_ROLES)}
    for client, roles in user.client_roles.items():
        client_roles[client] = sorted({*client_roles.get(client, []), *roles})
    return Subject(
        id=subject_of(realm, user.username),
        username=user.username.lower(),
        realm_roles=_merged(default_realm_roles(realm), user.roles),
        client_roles=client_roles,
        email=user.email,
        given_name=user.first_name,
        family_name=user.last_name,
    )


def service_account_subject(realm: str, client: ClientSpec) -> Subject:
    username = f"service-account-{client.id}"
    return Subject(
        id=subject_of(realm, username),
        username=username,
        realm_roles=_merged(default_realm_roles(realm), client.service_account_roles),
    )


def granted_scope(requested: str | None) -> str:
    """The scope string a token carries: `openid` only when asked for, profile and email always."""
    asked = (requested or "").split()
    extra = sorted({s for s in asked if s not in ("openid", *_ALWAYS_GRANTED_SCOPES)})
    head = ["openid"] if "openid" in asked else []
    return " ".join([*head, *_ALWAYS_GRANTED_SCOPES, *extra])


class TokenMinter:
    def __init__(
        self,
        *,
        realm: str,
        issuer: str,
        spec: RealmSpec,
        keys: RealmKeys,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.realm = realm
        self.issuer = issuer
        self.spec = spec
        self.keys = keys
        self._clock = clock

    def token_response(
        self,
        subject: Subject,
        client: ClientSpec,
        *,
        scope: str,
        sid: str | None,
        auth_time: int | None = None,
        nonce: str | None = None,
    ) -> dict[str, Any]:
        """The token endpoint's answer; refresh and ID tokens only come with a session."""
        now = int(self._clock())
        lifespan = self.spec.token_lifespan(client)
        access = self.keys.sign(self._access_claims(subject, client, scope, sid, now, lifespan, auth_time))
        body: dict[str, Any] = {
            "access_token": access,
            "expires_in": lifespan,
            "refresh_expires_in": 0,
            "token_type": "Bearer",
            "not-before-policy": 0,
            "scope": scope,
        }
        if sid is not None:
            refresh_lifespan = self.spec.refresh_token_lifespan
            body["refresh_expires_in"] = refresh_lifespan
            body["refresh_token"] = self.keys.sign_refresh(
                self._refresh_claims(subject, client, scope, sid, now, refresh_lifespan, nonce)
            )
            body["session_state"] = sid
            if "openid" in scope.split():
                body["id_token"] = self.keys.sign(
                    self._id_claims(subject, client, sid, now, lifespan, auth_time, nonce, access)
                )
        return body

    def _common(self, subject: Subject, client: ClientSpec, now: int, lifespan: int) -> dict[str, Any]:
        return {
            "exp": now + lifespan,
            "iat": now,
            "jti": str(uuid.uuid4()),
            "iss": self.issuer,
            "sub": subject.id,
            "azp": client.id,
        }

    def _profile(self, subject: Subject) -> dict[str, Any]:
        profile: dict[str, Any] = {
            "email_verified": subject.email is not None,
            "preferred_username": subject.username,
        }
        names = [n for n in (subject.given_name, subject.family_name) if n]
        if names:
            profile["name"] = " ".join(names)
        optional = {
            "given_name": subject.given_name,
            "family_name": subject.family_name,
            "email": subject.email,
        }
        profile.update({k: v for k, v in optional.items() if v is not None})
        return profile

    def _access_claims(
        self,
        subject: Subject,
        client: ClientSpec,
        scope: str,
        sid: str | None,
        now: int,
        lifespan: int,
        auth_time: int | None,
    ) -> dict[str, Any]:
        claims = self._common(subject, client, now, lifespan)
        if auth_time is not None:
            claims["auth_time"] = auth_time
        # Like Keycloak, `aud` appears only when something (here: the client's setting) adds it.
        if client.audience is not None:
            claims["aud"] = client.audience
        claims["typ"] = "Bearer"
        if sid is not None:
            claims["sid"] = sid
        claims["acr"] = "1"
        claims["realm_access"] = {"roles": list(subject.realm_roles)}
        if subject.client_roles:
            claims["resource_access"] = {c: {"roles": list(r)} for c, r in subject.client_roles.items()}
        claims["scope"] = scope
        claims.update(self._profile(subject))
        return claims

    def _id_claims(
        self,
        subject: Subject,
        client: ClientSpec,
        sid: str,
        now: int,
        lifespan: int,
        auth_time: int | None,
        nonce: str | None,
        access_token: str,
    ) -> dict[str, Any]:
        claims = self._common(subject, client, now, lifespan)
        if auth_time is not None:
            claims["auth_time"] = auth_time
        claims.update(aud=client.id, typ="ID", sid=sid, at_hash=_at_hash(access_token), acr="1")
        if nonce is not None:
            claims["nonce"] = nonce
        claims.update(self._profile(subject))
        return claims

    def _refresh_claims(
        self,
        subject: Subject,
        client: ClientSpec,
        scope: str,
        sid: str,
        now: int,
        lifespan: int,
        nonce: str | None,
    ) -> dict[str, Any]:
        claims = self._common(subject, client, now, lifespan)
        claims.update(aud=self.issuer, typ="Refresh", sid=sid, scope=scope)
        if nonce is not None:
            claims["nonce"] = nonce
        return claims


def _at_hash(access_token: str) -> str:
    """OIDC Core §3.1.3.6: left half of the SHA-256 of the access token, base64url."""
    digest = hashlib.sha256(access_token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest[: len(digest) // 2]).rstrip(b"=").decode()


def _merged(first: list[str], second: list[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
