"""GET /api/v1/me: who the caller is, as NuFi sees them."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from nufi.api.auth import AUTH_RESPONSES, CurrentPrincipal

router = APIRouter(prefix="/api/v1", tags=["identity"])


class Me(BaseModel):
    username: str = Field(description="preferred_username from the token (the subject when absent)")
    roles: list[str] = Field(
        description="realm roles and those of NuFi's client (NUFI_OIDC_ROLE_CLIENT), sorted"
    )
    is_admin: bool = Field(description="whether the caller holds NUFI_ADMIN_ROLE")


@router.get("/me", response_model=Me, responses=AUTH_RESPONSES)
async def me(principal: CurrentPrincipal) -> Me:
    return Me(username=principal.username, roles=sorted(principal.roles), is_admin=principal.is_admin)
