"""The Keycloak realm export: importable shape, the role and clients NuFi relies on, no credentials."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from nufi.auth.audience import audience_matches
from nufi.auth.principal import principal_from_claims
from nufi.config import Settings

from .deploy_manifests import DEPLOY_DIR, PRODUCTION_OVERLAY, REPO_ROOT, all_strings

REALM_FILE = DEPLOY_DIR / "keycloak" / "super-llm-realm.json"
INSTALL_DOC = REPO_ROOT / "docs" / "install.md"
PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")


@pytest.fixture(scope="module")
def realm() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(REALM_FILE.read_text())
    return loaded


def _client(realm: dict[str, Any], client_id: str) -> dict[str, Any]:
    matches: list[dict[str, Any]] = [c for c in realm["clients"] if c["clientId"] == client_id]
    assert len(matches) == 1, f"expected one client {client_id}"
    return matches[0]


def _production_settings() -> dict[str, str]:
    settings: dict[str, str] = {}
    for line in (PRODUCTION_OVERLAY / "nufi.env").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            settings[key.strip()] = value.strip()
    return settings


def test_the_realm_is_super_llm_and_enabled(realm: dict[str, Any]) -> None:
    assert realm["realm"] == "super-llm"
    assert realm["enabled"] is True
    assert realm["sslRequired"] in ("external", "all")
    assert realm["registrationAllowed"] is False


def test_the_admin_role_is_the_one_nufi_checks(realm: dict[str, Any]) -> None:
    roles = {role["name"]: role for role in realm["roles"]["realm"]}
    admin_role = Settings.model_fields["admin_role"].default
    assert admin_role in roles
    assert roles[admin_role]["description"]
    assert _production_settings()["NUFI_ADMIN_ROLE"] == admin_role
    # The group that hands out the role refers to a role that exists.
    for group in realm["groups"]:
        assert set(group["realmRoles"]) <= set(roles)


def test_the_dashboard_is_confidential_with_code_flow_and_pkce(realm: dict[str, Any]) -> None:
    client = _client(realm, "nufi-dashboard")
    assert client["protocol"] == "openid-connect"
    assert client["enabled"] is True
    assert client["publicClient"] is False
    assert client["clientAuthenticatorType"] == "client-secret"
    assert client["standardFlowEnabled"] is True
    assert client["implicitFlowEnabled"] is False
    assert client["directAccessGrantsEnabled"] is False
    assert client["attributes"]["pkce.code.challenge.method"] == "S256"
    assert client["redirectUris"] and client["webOrigins"]
    assert all(uri != "*" for uri in client["redirectUris"]), "a bare * redirect URI is an open redirect"


def test_the_cli_is_public_with_direct_access_grants(realm: dict[str, Any]) -> None:
    client = _client(realm, "nufi-cli")
    assert client["protocol"] == "openid-connect"
    assert client["enabled"] is True
    assert client["publicClient"] is True
    assert client["directAccessGrantsEnabled"] is True
    assert "secret" not in client


@pytest.mark.parametrize("client_id", ["nufi-dashboard", "nufi-cli"])
def test_access_tokens_carry_nufis_audience(realm: dict[str, Any], client_id: str) -> None:
    mappers = [
        m
        for m in _client(realm, client_id)["protocolMappers"]
        if m["protocolMapper"] == "oidc-audience-mapper"
    ]
    assert len(mappers) == 1
    mapper = mappers[0]
    assert mapper["protocol"] == "openid-connect" and mapper["name"]
    assert mapper["config"]["access.token.claim"] == "true"
    audience = mapper["config"]["included.custom.audience"]
    assert audience == _production_settings()["NUFI_OIDC_AUDIENCE"]


@pytest.mark.parametrize("client_id", ["nufi-dashboard", "nufi-cli"])
def test_nufi_accepts_a_token_shaped_by_this_realm(realm: dict[str, Any], client_id: str) -> None:
    # The claims Keycloak puts in an access token for a member of nufi-admins, given these mappers.
    client = _client(realm, client_id)
    (mapper,) = [m for m in client["protocolMappers"] if m["protocolMapper"] == "oidc-audience-mapper"]
    group_roles = realm["groups"][0]["realmRoles"]
    claims = {
        "azp": client_id,
        "aud": [mapper["config"]["included.custom.audience"], "account"],
        "preferred_username": "alice",
        "realm_access": {"roles": ["default-roles-super-llm", *group_roles]},
    }
    settings = _production_settings()
    assert audience_matches(claims, settings["NUFI_OIDC_AUDIENCE"])
    assert principal_from_claims(claims, admin_role=settings["NUFI_ADMIN_ROLE"]).is_admin


def test_mapper_and_attribute_values_are_strings(realm: dict[str, Any]) -> None:
    # Keycloak reads attributes and mapper config as string maps: a JSON true or number fails import.
    for client in realm["clients"]:
        assert all(isinstance(v, str) for v in client.get("attributes", {}).values()), client["clientId"]
        for mapper in client.get("protocolMappers", []):
            assert all(isinstance(v, str) for v in mapper["config"].values()), mapper["name"]


def test_no_credentials_are_committed(realm: dict[str, Any]) -> None:
    assert realm.get("users", []) == []
    keys = set(all_strings(realm))
    assert "credentials" not in keys and "password" not in keys
    # The dashboard secret is a placeholder Keycloak fills in at import.
    secret = _client(realm, "nufi-dashboard")["secret"]
    assert PLACEHOLDER.fullmatch(secret), f"client secret {secret!r} must be a ${{...}} placeholder"


def test_every_placeholder_is_documented() -> None:
    names = set(PLACEHOLDER.findall(REALM_FILE.read_text()))
    assert names == {"NUFI_URL", "NUFI_DASHBOARD_CLIENT_SECRET"}
    doc = INSTALL_DOC.read_text()
    for name in names:
        assert f"`{name}`" in doc, f"docs/install.md does not explain placeholder {name}"


def test_the_issuer_in_production_settings_names_this_realm(realm: dict[str, Any]) -> None:
    issuer = _production_settings()["NUFI_OIDC_ISSUER"]
    assert issuer.endswith(f"/realms/{realm['realm']}")
