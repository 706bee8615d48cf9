"""Shared by the auth integration tests: the realm the dev identity provider serves, and NuFi apps
served in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from nufi.api import create_app
from nufi.api.auth import AdminPrincipal
from nufi.config import Settings

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


# The server migrates its database at start; an in-memory one keeps these tests out of the work tree.
MEMORY_DATABASE = "sqlite+aiosqlite:///:memory:"


def nufi_settings(**values: Any) -> Settings:
    """NuFi settings for a test: `values` on top of an in-memory database."""
    return Settings(**{"database_url": MEMORY_DATABASE, **values})


def build_app(settings: Settings) -> FastAPI:
    app = create_app(settings)

    # Stands for any admin route until the admin routers exist.
    @app.get("/test/admin-only")
    async def admin_only(principal: AdminPrincipal) -> dict[str, str]:
        return {"admin": principal.username}

    return app


@asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = build_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://nufi.test") as client:
            yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
