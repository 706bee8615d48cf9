"""NuFi apps as the API tests build them: an in-memory database, a stand-in admin route, bearer headers."""

from __future__ import annotations

from fastapi import FastAPI

from nufi.api.auth import AdminPrincipal

# The server migrates its database at start; an in-memory one keeps a test out of the work tree.
MEMORY_DATABASE = "sqlite+aiosqlite:///:memory:"


def with_admin_only_route(app: FastAPI) -> FastAPI:
    """`app` with GET /test/admin-only, which stands for any route that needs the admin role."""

    @app.get("/test/admin-only")
    async def admin_only(principal: AdminPrincipal) -> dict[str, str]:
        return {"admin": principal.username}

    return app


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
