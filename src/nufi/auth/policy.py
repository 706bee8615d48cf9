"""Authorization rules. Services call these, so the REST API and the dashboard enforce the same ones."""

from __future__ import annotations

from nufi.auth.principal import Principal
from nufi.errors import Forbidden, Unauthorized

_SIGN_IN = "sign in first: this action needs an authenticated user"


def require_user(principal: Principal | None) -> None:
    """Any signed-in user may proceed."""
    if principal is None:
        raise Unauthorized(_SIGN_IN)


def require_admin(principal: Principal | None) -> Principal:
    """Only holders of the configured admin role may proceed; returns the principal checked."""
    if principal is None:
        raise Unauthorized(_SIGN_IN)
    if not principal.is_admin:
        raise Forbidden(
            f"requires role {principal.admin_role}: user {principal.username!r} does not have it; "
            "ask an administrator to grant it in the identity provider",
            required_role=principal.admin_role,
        )
    return principal
