"""Everything one served realm is made of, handed to the endpoints."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nufi_sandbox.idp.keys import RealmKeys
from nufi_sandbox.idp.realm import RealmSpec, load_realm
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
    # The users file the realm was read from: read again when it changes, so a test can take a role
    # away from a signed-in user (as an administrator does in Keycloak) and see it at the next refresh.
    source: Path | None = None
    _read_at: list[int] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def create(
        cls, *, name: str, base_url: str, spec: RealmSpec, keys: RealmKeys, source: Path | None = None
    ) -> RealmContext:
        issuer = realm_issuer(base_url, name)
        minter = TokenMinter(realm=name, issuer=issuer, spec=spec, keys=keys)
        return cls(
            name=name,
            base_url=base_url,
            spec=spec,
            keys=keys,
            sessions=SessionStore(),
            minter=minter,
            source=source,
        )

    def reread_if_changed(self) -> None:
        """The users file read again if it changed since; a file that does not read keeps the realm
        as it was (an editor may be half-way through writing it)."""
        if self.source is None:
            return
        try:
            changed_at = self.source.stat().st_mtime_ns
        except OSError:
            return
        if self._read_at == [changed_at]:
            return
        try:
            spec = load_realm(self.source)
        except ValueError:
            return
        object.__setattr__(self, "spec", spec)  # frozen for the endpoints; this is the one writer
        self.minter.spec = spec
        self._read_at[:] = [changed_at]

    @property
    def issuer(self) -> str:
        return realm_issuer(self.base_url, self.name)

    def endpoint(self, name: str) -> str:
        """An OpenID Connect endpoint URL, e.g. endpoint("token")."""
        return f"{self.issuer}{OIDC_PATH}/{name}"


def realm_issuer(base_url: str, realm: str) -> str:
    """Keycloak ≥ 17: `<scheme>://<host>[:port]/realms/<realm>`."""
    return f"{base_url.rstrip('/')}/realms/{realm}"
