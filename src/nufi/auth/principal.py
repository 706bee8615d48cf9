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

    `roles` holds realm roles and the roles of every client together, since an operator may grant
    the admin role either way; `realm_roles` and `client_roles` keep where each came from.
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


def principal_from_claims(claims: Mapping[str, Any], *, admin_role: str = DEFAULT_ADMIN_ROLE) -> Principal:
    """Build a Principal from verified Keycloak-shaped claims.

    Role claims of an unexpected shape are ignored rather than trusted: a malformed `realm_access`
    grants nothing.
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
    every_role = realm_roles.union(*client_roles.values())
    email = claims.get("email")
    return Principal(
        subject=subject,
        username=username,
        roles=every_role,
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
