"""Authorization rules. Services call these, so the REST API and the dashboard enforce the same ones."""

from __future__ import annotations

from nufi.auth.principal import Principal
from nufi.errors import Forbidden, Unauthorized


def require_user(principal: Principal | None) -> None:
    """Any signed-in user may proceed."""
    if principal is None:
        raise Unauthorized(code="auth.sign_in_first")


def require_admin(principal: Principal | None) -> Principal:
    """Only holders of the configured admin role may proceed; returns the principal checked."""
    if principal is None:
        raise Unauthorized(code="auth.sign_in_first")
    if not principal.is_admin:
        raise Forbidden(
            code="auth.role_required", params={"user": principal.username}, required_role=principal.admin_role
        )
    return principal
