"""Roles come from realm_access and NuFi's own client in resource_access; admin is one configured role."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.auth import Principal, principal_from_claims, require_admin, require_user
from nufi.errors import Forbidden, Unauthorized

KEYCLOAK_CLAIMS: dict[str, Any] = {
    "sub": "7c3b1e52-5d8a-4a61-9a4c-2f0c8c1b9d10",
    "preferred_username": "ada",
    "email": "ada@example.com",
    "realm_access": {"roles": ["default-roles-super-llm", "offline_access", "uma_authorization", "viewer"]},
    "resource_access": {
        "account": {"roles": ["manage-account", "view-profile"]},
        "nufi-dashboard": {"roles": ["operator"]},
    },
}


def test_roles_are_realm_roles_and_the_role_clients_roles_only() -> None:
    principal = principal_from_claims(KEYCLOAK_CLAIMS, role_client="nufi-dashboard")
    assert principal.roles == {
        "default-roles-super-llm",
        "offline_access",
        "uma_authorization",
        "viewer",
        "operator",
    }
    assert principal.realm_roles == {
        "default-roles-super-llm",
        "offline_access",
        "uma_authorization",
        "viewer",
    }
    assert dict(principal.client_roles) == {
        "account": frozenset({"manage-account", "view-profile"}),
        "nufi-dashboard": frozenset({"operator"}),
    }
    assert (principal.subject, principal.username, principal.email) == (
        KEYCLOAK_CLAIMS["sub"],
        "ada",
        "ada@example.com",
    )


def test_without_a_role_client_only_realm_roles_count() -> None:
    principal = principal_from_claims(KEYCLOAK_CLAIMS)
    assert principal.roles == principal.realm_roles
    assert "operator" not in principal.roles


def test_admin_role_may_come_from_the_realm_or_from_nufis_client() -> None:
    from_realm = principal_from_claims(
        {**KEYCLOAK_CLAIMS, "realm_access": {"roles": ["nufi-admin"]}}, role_client="nufi"
    )
    from_client = principal_from_claims(
        {**KEYCLOAK_CLAIMS, "resource_access": {"nufi": {"roles": ["nufi-admin"]}}}, role_client="nufi"
    )
    plain = principal_from_claims(KEYCLOAK_CLAIMS, role_client="nufi")
    assert from_realm.is_admin
    assert from_client.is_admin
    assert not plain.is_admin


@pytest.mark.parametrize("role_client", [None, "nufi"])
def test_the_admin_role_of_another_client_grants_nothing(role_client: str | None) -> None:
    # Anyone who can create a client in the realm can give it a role called nufi-admin.
    claims = {
        **KEYCLOAK_CLAIMS,
        "resource_access": {"some-unrelated-client": {"roles": ["nufi-admin"]}},
    }
    principal = principal_from_claims(claims, role_client=role_client)
    assert not principal.is_admin
    assert "nufi-admin" not in principal.roles
    assert principal.client_roles["some-unrelated-client"] == {"nufi-admin"}
    with pytest.raises(Forbidden):
        require_admin(principal)


def test_admin_is_judged_against_the_configured_role() -> None:
    claims = {**KEYCLOAK_CLAIMS, "realm_access": {"roles": ["nufi-admin"]}}
    assert not principal_from_claims(claims, admin_role="platform-admin").is_admin
    assert principal_from_claims(
        {**claims, "realm_access": {"roles": ["platform-admin"]}}, admin_role="platform-admin"
    ).is_admin


@pytest.mark.parametrize(
    "claims",
    [
        {"realm_access": "nufi-admin"},
        {"realm_access": {"roles": "nufi-admin"}},
        {"realm_access": {"roles": [7, None, "", {"nufi-admin": True}]}},
        {"resource_access": ["nufi-admin"]},
        {"resource_access": {"nufi": ["nufi-admin"]}},
        {"resource_access": {"nufi": {"roles": {"nufi-admin": 1}}}},
    ],
)
def test_role_claims_of_the_wrong_shape_grant_nothing(claims: dict[str, Any]) -> None:
    principal = principal_from_claims({"sub": "s", **claims}, role_client="nufi")
    assert principal.roles == frozenset()
    assert not principal.is_admin


def test_username_falls_back_to_the_subject() -> None:
    principal = principal_from_claims({"sub": "service-account-uuid"})
    assert principal.username == "service-account-uuid"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(
    realm_access=json_values,
    resource_access=json_values,
    sub=json_values,
    username=json_values,
)
def test_any_claims_give_a_principal_whose_roles_are_non_empty_strings(
    realm_access: object, resource_access: object, sub: object, username: object
) -> None:
    principal = principal_from_claims(
        {
            "realm_access": realm_access,
            "resource_access": resource_access,
            "sub": sub,
            "preferred_username": username,
        },
        role_client="nufi",
    )
    assert all(isinstance(role, str) and role for role in principal.roles)
    assert principal.roles == principal.realm_roles | principal.client_roles.get("nufi", frozenset())
    assert isinstance(principal.username, str)


def _principal(*roles: str, admin_role: str = "nufi-admin") -> Principal:
    return Principal(subject="s", username="ada", roles=frozenset(roles), admin_role=admin_role)


def test_require_admin_lets_admins_through_and_names_the_missing_role_otherwise() -> None:
    require_admin(_principal("nufi-admin"))
    with pytest.raises(Forbidden) as refused:
        require_admin(_principal("viewer"))
    assert refused.value.status == 403
    assert "requires role nufi-admin" in refused.value.detail
    assert "'ada'" in refused.value.detail
    with pytest.raises(Forbidden, match="requires role platform-admin"):
        require_admin(_principal("nufi-admin", admin_role="platform-admin"))


def test_require_user_and_require_admin_refuse_an_anonymous_caller_with_401() -> None:
    require_user(_principal())
    with pytest.raises(Unauthorized):
        require_user(None)
    with pytest.raises(Unauthorized) as refused:
        require_admin(None)
    assert not isinstance(refused.value, Forbidden)
    assert refused.value.status == 401
