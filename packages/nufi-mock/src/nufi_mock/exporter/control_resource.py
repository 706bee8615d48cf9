"""What every ``/control/...`` resource of the exporter shares: problem responses, the JSON body, the
node and device a request names, and GET / POST / DELETE on one path."""

from __future__ import annotations

import hmac
import json
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .engine import ExporterEngine
from .overrides import ANY


class ControlError(Exception):
    def __init__(self, status: int, title: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.title, self.detail, self.field = status, title, detail, field

    @classmethod
    def from_validation(cls, exc: ValidationError, title: str) -> ControlError:
        """A 422 naming the first invalid field and listing every problem."""
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or None
        detail = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in exc.errors()
        )
        return cls(422, title, detail, where)

    def response(self) -> Response:
        body: dict[str, Any] = {"type": "about:blank", "title": self.title, "status": self.status}
        body["detail"] = self.detail
        if self.field:
            body["field"] = self.field
        return JSONResponse(body, status_code=self.status, media_type="application/problem+json")


def known_node(engine: ExporterEngine, node: str) -> str:
    """`node` when this exporter simulates it, else a 404 naming the nodes it does."""
    if node not in engine.fleet.nodes:
        known = ", ".join(engine.fleet.nodes)
        raise ControlError(
            404, "Unknown node", f"node {node!r} is not simulated here; nodes: {known}", "node"
        )
    return node


def known_device(engine: ExporterEngine, node: str, device: str | int | None) -> int | None:
    """The index of `device` of `node` (None: every device of the node), else a 404."""
    if device is None:
        return None
    index = engine.fleet.resolve(node, str(device))
    if index is None:
        raise ControlError(
            404,
            "Unknown device",
            f"node {node!r} has no device {device!r}; name it by index, "
            f"{engine.profile.device_label(0)}-style label, lpu id or UUID",
            "device",
        )
    return index


def selected_place(engine: ExporterEngine, selector: BaseModel) -> dict[str, Any]:
    """The node and device keys a DELETE selector names (`device: null` names the node-wide entry; a key
    left out matches anything), each checked as known."""
    given = selector.model_fields_set
    node_name = getattr(selector, "node", None)
    device = getattr(selector, "device", None)
    node = known_node(engine, node_name) if node_name is not None else None
    keys: dict[str, Any] = {}
    if "node" in given and node is not None:
        keys["node"] = node
    if "device" in given:
        if device is not None and node is None:
            raise ControlError(422, "Device without node", "name the node of the device", "node")
        keys["device"] = None if device is None else known_device(engine, node or "", device)
    return {"node": keys.get("node", ANY), "device": keys.get("device", ANY)}


async def json_body(
    request: Request, *, required: bool, example: str = '{"node": ..., "metric": ...}'
) -> Any:
    raw = await request.body()
    if not raw.strip():
        if required:
            raise ControlError(400, "Missing body", f"send a JSON object like {example}")
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ControlError(400, "Malformed JSON", f"the body is not JSON: {exc.msg}") from None


def _bearer(authorization: str | None) -> str | None:
    scheme, _, token = (authorization or "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def holds_token(request: Request, token: str) -> bool:
    """Whether `request` carries `Authorization: Bearer <token>` (compared in constant time)."""
    given = _bearer(request.headers.get("authorization"))
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


class ControlResource:
    """GET lists, POST sets, DELETE removes; a refusal is a problem response naming the field.

    A resource that steers what the exporter reports (`steers`) takes only requests carrying the
    exporter's control token, when it has one: on a host where others' programs share the loopback
    (the sandbox's pods), whoever can connect could otherwise heat any node."""

    path: ClassVar[str]
    # The problem's title when the body does not validate.
    invalid: ClassVar[str]
    steers: ClassVar[bool] = True

    def __init__(self, engine: ExporterEngine) -> None:
        self.engine = engine

    async def get(self, request: Request) -> Response:
        raise NotImplementedError

    async def post(self, request: Request) -> Response:
        raise NotImplementedError

    async def delete(self, request: Request) -> Response:
        raise NotImplementedError

    async def dispatch(self, request: Request) -> Response:
        handler = {"GET": self.get, "POST": self.post, "DELETE": self.delete}[request.method]
        token = self.engine.config.control_token
        if self.steers and token is not None and not holds_token(request, token):
            refusal = ControlError(
                401,
                "Control token required",
                "send the exporter's control token as 'Authorization: Bearer <token>'",
                "Authorization",
            ).response()
            refusal.headers["WWW-Authenticate"] = "Bearer"
            return refusal
        try:
            return await handler(request)
        except ControlError as exc:
            return exc.response()
        except ValidationError as exc:
            return ControlError.from_validation(exc, self.invalid).response()

    def route(self) -> Route:
        return Route(self.path, self.dispatch, methods=["GET", "POST", "DELETE"])
