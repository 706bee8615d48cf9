"""FastAPI dependencies that authenticate the caller; the decisions themselves live in nufi.auth."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from nufi.api.edge.guard import verified_principal
from nufi.api.schemas.problem import ResponseDocs, problem
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

AUTH_RESPONSES: ResponseDocs = {
    400: problem("More than one `Authorization` header."),
    401: problem("No, or no acceptable, bearer token (`WWW-Authenticate: Bearer` says which)."),
    503: problem("A dependency is down: the identity provider's keys, or a system the operation reads."),
}
ADMIN_RESPONSES: ResponseDocs = {
    **AUTH_RESPONSES,
    403: problem("Signed in, but without the admin role (NUFI_ADMIN_ROLE)."),
}


async def current_principal(
    request: Request,
    services: Annotated[Services, Depends(get_services)],
    _declared: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer_scheme)],
) -> Principal:
    # A request with a body was authenticated before the body was read; do not verify twice.
    already = verified_principal(request.scope)
    if already is not None:
        return already
    return await authenticate(services.verifier, request.headers.getlist("authorization"))


async def admin_principal(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    return require_admin(principal)


CurrentPrincipal = Annotated[Principal, Depends(current_principal)]
AdminPrincipal = Annotated[Principal, Depends(admin_principal)]
