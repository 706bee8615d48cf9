"""GET /api/v1/auth/cli: where the command line signs in. Public, as an OIDC discovery document is:
it names only the issuer and a public client, which a caller needs before it holds any token."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from nufi.api.services import get_settings
from nufi.config import Settings

router = APIRouter(prefix="/api/v1", tags=["identity"])


class CliAuthConfig(BaseModel):
    issuer: str | None = Field(
        description="the OIDC issuer NuFi accepts tokens from (NUFI_OIDC_ISSUER); null when sign-in is off"
    )
    client_id: str = Field(
        description="the public client the command line signs in as, with authorization code + PKCE "
        "and a loopback redirect (NUFI_OIDC_CLI_CLIENT_ID)"
    )
    scope: str = Field(description="the scopes to ask for")


@router.get("/auth/cli", response_model=CliAuthConfig, summary="Where the command line signs in")
async def cli_auth(settings: Annotated[Settings, Depends(get_settings)]) -> CliAuthConfig:
    return CliAuthConfig(issuer=settings.oidc_issuer, client_id=settings.oidc_cli_client_id, scope="openid")
