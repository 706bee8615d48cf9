"""FastAPI dependencies that authenticate the caller; the decisions themselves live in nufi.auth."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from nufi.api.services import get_services
from nufi.auth import Principal, authenticate, require_admin
from nufi.services import Services

# Declared for the OpenAPI document ("Authorize" in /docs); the header itself is parsed by nufi.auth,
# which is stricter and explains every rejection.
_bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="OIDC bearer token",
    description="An access token from the identity provider named by NUFI_OIDC_ISSUER.",
)

AUTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {
        "description": "No, or no acceptable, bearer token (problem+json; `WWW-Authenticate: Bearer`).",
        "content": {"application/problem+json": {}},
    },
    503: {
        "description": "The identity provider's keys cannot be fetched.",
        "content": {"application/problem+json": {}},
    },
}
ADMIN_RESPONSES: dict[int | str, dict[str, Any]] = {
    **AUTH_RESPONSES,
    403: {
        "description": "Signed in, but without the admin role (NUFI_ADMIN_ROLE).",
        "content": {"application/problem+json": {}},
    },
}


async def current_principal(
    request: Request,
    services: Annotated[Services, Depends(get_services)],
    _declared: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer_scheme)],
) -> Principal:
    return await authenticate(services.verifier, request.headers.get("authorization"))


async def admin_principal(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    require_admin(principal)
    return principal


CurrentPrincipal = Annotated[Principal, Depends(current_principal)]
AdminPrincipal = Annotated[Principal, Depends(admin_principal)]
