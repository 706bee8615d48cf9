"""Who is calling: the identity and roles carried by a verified access token."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

DEFAULT_ADMIN_ROLE = "nufi-admin"


@dataclass(frozen=True)
class Principal:
    """A signed-in caller.

    `roles` holds the roles NuFi honours: the realm roles and the roles of NuFi's own client (the
    role client, NUFI_OIDC_ROLE_CLIENT, by default the audience). Roles of other clients are kept
    in `client_roles` for information only: any client may define a role called `nufi-admin`, and
    holding it there must not make anyone a NuFi administrator.
    """

    subject: str
    username: str
    roles: frozenset[str]
    realm_roles: frozenset[str] = frozenset()
    client_roles: Mapping[str, frozenset[str]] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    admin_role: str = DEFAULT_ADMIN_ROLE
    email: str | None = None

    @property
    def is_admin(self) -> bool:
        return self.admin_role in self.roles


def principal_from_claims(
    claims: Mapping[str, Any],
    *,
    admin_role: str = DEFAULT_ADMIN_ROLE,
    role_client: str | None = None,
) -> Principal:
    """Build a Principal from verified Keycloak-shaped claims.

    Its roles are the realm roles plus, when `role_client` is given, the roles of that client in
    `resource_access`; no other client's roles count. Role claims of an unexpected shape are
    ignored rather than trusted: a malformed `realm_access` grants nothing.
    """
    subject = claims.get("sub")
    subject = subject if isinstance(subject, str) else ""
    username = claims.get("preferred_username")
    if not isinstance(username, str) or not username:
        username = subject
    realm_roles = _roles_in(claims.get("realm_access"))
    client_roles: dict[str, frozenset[str]] = {}
    resource_access = claims.get("resource_access")
    if isinstance(resource_access, Mapping):
        for client, access in resource_access.items():
            roles = _roles_in(access)
            if isinstance(client, str) and roles:
                client_roles[client] = roles
    honoured = realm_roles
    if role_client is not None:
        honoured = realm_roles | client_roles.get(role_client, frozenset())
    email = claims.get("email")
    return Principal(
        subject=subject,
        username=username,
        roles=honoured,
        realm_roles=realm_roles,
        client_roles=MappingProxyType(client_roles),
        admin_role=admin_role,
        email=email if isinstance(email, str) else None,
    )


def _roles_in(access: object) -> frozenset[str]:
    if not isinstance(access, Mapping):
        return frozenset()
    roles = access.get("roles")
    if not isinstance(roles, list):
        return frozenset()
    return frozenset(role for role in roles if isinstance(role, str) and role)
