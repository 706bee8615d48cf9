"""The realm a dev identity provider serves: users, clients and token lifetimes, read from YAML.

```yaml
access_token_lifespan: 300          # seconds (realm default); may be 0 or negative to mint
refresh_token_lifespan: 1800        # already-expired tokens for tests
users:
  - username: admin
    password: admin
    email: admin@example.com        # optional
    roles: [nufi-admin]             # realm roles, on top of the realm's default roles
    client_roles: {nufi-dashboard: [viewer]}   # optional
clients:
  - id: nufi-dashboard
    secret: change-me               # confidential client; or `public: true`
    redirect_uris: ["http://127.0.0.1:8080/*"]  # exact, or a prefix when ending in `*` (as Keycloak)
    audience: nufi                  # optional: becomes the `aud` claim (string or list)
    access_token_lifespan: 60       # optional, overrides the realm's
    service_account_roles: []       # realm roles of its client_credentials tokens
```

The public client `nufi-cli` exists even when the file does not list it: the password grant, and the
authorization code grant with PKCE to a loopback redirect on any port (`nufi login`, RFC 8252 §7.3).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

DEFAULT_REALM = "super-llm"
DEFAULT_USERS_FILE = Path(__file__).with_name("dev-users.yaml")
CLI_CLIENT_ID = "nufi-cli"
# A native app listens on a port the OS picks, so its loopback redirect is registered for any port.
CLI_REDIRECT_URIS = ("http://127.0.0.1:*",)
ACCOUNT_CLIENT_ID = "account"
ACCOUNT_ROLES = ("manage-account", "manage-account-links", "view-profile")


class UserSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    username: str = Field(min_length=1)
    password: str
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    roles: list[str] = []
    client_roles: dict[str, list[str]] = {}


class ClientSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    public: bool = False
    secret: str | None = None
    redirect_uris: list[str] = []
    audience: str | list[str] | None = None
    access_token_lifespan: int | None = None
    service_account_roles: list[str] = []

    @model_validator(mode="after")
    def _public_or_secret(self) -> Self:
        if not self.public and not self.secret:
            raise ValueError(f"client {self.id!r} needs a secret, or `public: true`")
        if self.public and self.secret:
            raise ValueError(f"client {self.id!r} is public and cannot have a secret")
        return self

    def accepts_redirect(self, uri: str) -> bool:
        for allowed in self.redirect_uris:
            if allowed.endswith("*"):
                if uri.startswith(allowed[:-1]):
                    return True
            elif uri == allowed:
                return True
        return False


class RealmSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    access_token_lifespan: int = 300
    refresh_token_lifespan: int = 1800
    users: list[UserSpec] = []
    clients: list[ClientSpec] = []

    @model_validator(mode="after")
    def _unique_names(self) -> Self:
        for what, names in (
            ("username", [u.username.lower() for u in self.users]),
            ("client id", [c.id for c in self.clients]),
        ):
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise ValueError(f"duplicate {what}(s): {', '.join(duplicates)}")
        return self

    def with_cli_client(self) -> RealmSpec:
        if any(client.id == CLI_CLIENT_ID for client in self.clients):
            return self
        cli = ClientSpec(id=CLI_CLIENT_ID, public=True, redirect_uris=list(CLI_REDIRECT_URIS))
        return self.model_copy(update={"clients": [*self.clients, cli]})

    def user(self, username: str) -> UserSpec | None:
        # Keycloak stores usernames in lower case and matches them that way.
        wanted = username.lower()
        return next((u for u in self.users if u.username.lower() == wanted), None)

    def client(self, client_id: str) -> ClientSpec | None:
        return next((c for c in self.clients if c.id == client_id), None)

    def token_lifespan(self, client: ClientSpec) -> int:
        if client.access_token_lifespan is not None:
            return client.access_token_lifespan
        return self.access_token_lifespan


def default_realm_roles(realm: str) -> list[str]:
    """The realm roles Keycloak gives every user of a fresh realm."""
    return [f"default-roles-{realm}", "offline_access", "uma_authorization"]


def subject_of(realm: str, username: str) -> str:
    """A stable user id, so tokens minted before and after a restart name the same subject."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"nufi-dev-idp/{realm}/{username.lower()}"))


def load_realm(path: Path) -> RealmSpec:
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read the users file {path}: {exc}") from exc
    try:
        spec = RealmSpec.model_validate(raw or {})
    except ValidationError as exc:
        raise ValueError(f"invalid users file {path}: {exc}") from exc
    return spec.with_cli_client()
