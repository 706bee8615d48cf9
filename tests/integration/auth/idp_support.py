"""Shared by the auth integration tests: the realm the dev identity provider serves, and NuFi apps
served in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from nufi.api import create_app
from nufi.config import Settings
from support.asgi import serving as serve_app
from support.nufi_app import MEMORY_DATABASE, with_admin_only_route

DASHBOARD_SECRET = "dashboard-test-secret"
CALLBACK = "http://127.0.0.1:8080/auth/callback"

USERS: dict[str, Any] = {
    "users": [
        {"username": "admin", "password": "admin-pw", "email": "admin@example.com", "roles": ["nufi-admin"]},
        {
            "username": "user",
            "password": "user-pw",
            "roles": [],
            "client_roles": {"nufi-dashboard": ["viewer"]},
        },
        # The admin role as a role of NuFi's own client (the audience, `nufi`) ...
        {"username": "client-admin", "password": "client-admin-pw", "client_roles": {"nufi": ["nufi-admin"]}},
        # ... and as a role some other client in the realm happens to define.
        {
            "username": "foreign-admin",
            "password": "foreign-admin-pw",
            "client_roles": {"some-unrelated-client": ["nufi-admin"]},
        },
    ],
    "clients": [
        {"id": "nufi-cli", "public": True},
        {
            "id": "nufi-dashboard",
            "secret": DASHBOARD_SECRET,
            "redirect_uris": [CALLBACK, "http://localhost:*"],
            "audience": "nufi",
        },
        # Tokens already two minutes past their expiry: beyond any verifier's clock-skew leeway.
        {"id": "expired-cli", "public": True, "access_token_lifespan": -120},
    ],
}


def nufi_settings(**values: Any) -> Settings:
    """NuFi settings for a test: `values` on top of an in-memory database."""
    return Settings(**{"database_url": MEMORY_DATABASE, **values})


@asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """NuFi with the stand-in admin route, served in memory."""
    async with serve_app(with_admin_only_route(create_app(settings))) as client:
        yield client
