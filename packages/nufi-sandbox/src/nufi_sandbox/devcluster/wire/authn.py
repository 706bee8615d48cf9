"""Who may use the dev cluster's API: the holder of its bearer token, as a kube-apiserver with a static
token; anyone else gets 401 and a `Status` with reason Unauthorized, the way kube-apiserver answers.

The sandbox's pods are local processes on the same loopback, so the API must not trust a caller for
reaching it: the token is made when the dev cluster starts, written into the kubeconfig it hands out
(mode 0600) and never into a pod's environment. As in kube-apiserver's defaults
(`system:public-info-viewer`), the health endpoints and `/version` stay open to anyone.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from nufi_sandbox.devcluster.errors import ApiError

PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version"})
# Closing a WebSocket before accepting it with "policy violation" is what an ASGI app can answer.
_WS_POLICY_VIOLATION = 1008


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (the scheme is case-insensitive)."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def holds(authorization: str | None, token: str) -> bool:
    """Whether the header carries `token` (compared in constant time)."""
    given = bearer_token(authorization)
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


class RequireToken:
    """ASGI middleware: every request but the public ones must carry the bearer token."""

    def __init__(self, app: ASGIApp, *, token: str) -> None:
        if not token:
            raise ValueError("the dev cluster's API token must not be empty")
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] not in ("http", "websocket")
            or scope["path"] in PUBLIC_PATHS
            or holds(Headers(scope=scope).get("authorization"), self.token)
        ):
            await self.app(scope, receive, send)
            return
        refusal = unauthorized()
        response = JSONResponse(refusal.status(), status_code=refusal.code)
        if scope["type"] == "http":
            await response(scope, receive, send)
            return
        try:
            # An upgrade is refused with the same status and body, as the services proxy refuses one.
            await WebSocket(scope, receive, send).send_denial_response(response)
        except RuntimeError:  # a server without the denial-response extension can only close
            await send({"type": "websocket.close", "code": _WS_POLICY_VIOLATION})
