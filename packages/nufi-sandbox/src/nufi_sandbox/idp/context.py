"""Everything one served realm is made of, handed to the endpoints."""

from __future__ import annotations

from dataclasses import dataclass

from nufi_sandbox.idp.keys import RealmKeys
from nufi_sandbox.idp.realm import RealmSpec
from nufi_sandbox.idp.sessions import SessionStore
from nufi_sandbox.idp.tokens import TokenMinter

OIDC_PATH = "/protocol/openid-connect"


@dataclass(frozen=True)
class RealmContext:
    name: str
    base_url: str
    spec: RealmSpec
    keys: RealmKeys
    sessions: SessionStore
    minter: TokenMinter

    @classmethod
    def create(cls, *, name: str, base_url: str, spec: RealmSpec, keys: RealmKeys) -> RealmContext:
        issuer = realm_issuer(base_url, name)
        minter = TokenMinter(realm=name, issuer=issuer, spec=spec, keys=keys)
        return cls(name=name, base_url=base_url, spec=spec, keys=keys, sessions=SessionStore(), minter=minter)

    @property
    def issuer(self) -> str:
        return realm_issuer(self.base_url, self.name)

    def endpoint(self, name: str) -> str:
        """An OpenID Connect endpoint URL, e.g. endpoint("token")."""
        return f"{self.issuer}{OIDC_PATH}/{name}"


def realm_issuer(base_url: str, realm: str) -> str:
    """Keycloak ≥ 17: `<scheme>://<host>[:port]/realms/<realm>`."""
    return f"{base_url.rstrip('/')}/realms/{realm}"
