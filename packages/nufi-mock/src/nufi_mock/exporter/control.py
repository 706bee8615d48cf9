"""``/control/override``: force a metric of a device, or of every device of a node, for a while.

POST   {"node", "device" (null = all devices of the node), "metric", "value", "duration_seconds"}
DELETE with no body removes every override; with a body, those matching each key it names
       ("device": null names the node-wide override, a missing key matches anything)
GET    lists the active overrides
``metric`` is a quantity (utilization, memory_used, memory_total, temperature, power; value in %, bytes,
°C, W; health: 1 healthy, 0 unhealthy) or a metric name of the active profile (value in that metric's
unit, e.g. MiB for DCGM FB_USED, 1 inactive for rbln_npu_health).
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .engine import ExporterEngine
from .overrides import ANY, Override
from .profiles import OverrideTarget
from .readings import Quantity

_LIMITS = {
    Quantity.UTILIZATION: (0.0, 100.0),
    Quantity.TEMPERATURE: (-50.0, 200.0),
    Quantity.MEMORY_USED: (0.0, math.inf),
    Quantity.MEMORY_TOTAL: (0.0, math.inf),
    Quantity.POWER: (0.0, math.inf),
    Quantity.HEALTH: (0.0, 1.0),
}
# Quantities that are a state, not a measure: nothing between their values means anything.
_STATES = {Quantity.HEALTH: (0.0, 1.0)}


class OverrideRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node: str
    device: str | int | None = None
    metric: str
    value: float
    duration_seconds: float | None = Field(default=None, gt=0)

    @field_validator("value")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("value must be a finite number")
        return value


class OverrideSelector(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node: str | None = None
    device: str | int | None = None
    metric: str | None = None


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


class OverrideControl:
    def __init__(self, engine: ExporterEngine) -> None:
        self.engine = engine

    def targets(self) -> dict[str, OverrideTarget]:
        by_quantity = {quantity.value: OverrideTarget(quantity) for quantity in Quantity}
        return by_quantity | self.engine.profile.override_targets()

    def _target(self, metric: str) -> OverrideTarget:
        target = self.targets().get(metric)
        if target is None:
            choices = ", ".join(self.targets())
            raise ControlError(
                422,
                "Unknown metric",
                f"metric {metric!r} cannot be overridden; use one of {choices}",
                "metric",
            )
        return target

    def _node(self, node: str) -> str:
        return known_node(self.engine, node)

    def _device(self, node: str, device: str | int | None) -> int | None:
        return known_device(self.engine, node, device)

    def describe(self, item: Override) -> dict[str, Any]:
        now = self.engine.clock()
        return {
            "node": item.node,
            "device": None if item.device is None else self.engine.profile.device_label(item.device),
            "metric": item.quantity.value,
            "value": item.value,
            "unit": item.quantity.unit,
            "expires_in_seconds": None if item.expires_at is None else round(item.expires_at - now, 3),
        }

    async def post(self, request: Request) -> Response:
        wanted = OverrideRequest.model_validate(await json_body(request, required=True))
        node = self._node(wanted.node)
        device = self._device(node, wanted.device)
        target = self._target(wanted.metric)
        value = target.canonical(wanted.value)
        _check_value(wanted.metric, target.quantity, wanted.value, value)
        expires = None if wanted.duration_seconds is None else self.engine.clock() + wanted.duration_seconds
        item = Override(node, device, target.quantity, value, expires)
        replaced = self.engine.overrides.put(item)
        return JSONResponse(self.describe(item), status_code=200 if replaced else 201)

    async def delete(self, request: Request) -> Response:
        body = await json_body(request, required=False)
        selector = OverrideSelector.model_validate(body or {})
        given = selector.model_fields_set
        node = self._node(selector.node) if selector.node is not None else None
        keys: dict[str, Any] = {}
        if "node" in given and node is not None:
            keys["node"] = node
        if "device" in given:
            if selector.device is not None and node is None:
                raise ControlError(422, "Device without node", "name the node of the device", "node")
            keys["device"] = None if selector.device is None else self._device(node or "", selector.device)
        if "metric" in given and selector.metric is not None:
            keys["quantity"] = self._target(selector.metric).quantity
        removed = self.engine.overrides.remove(
            **{k: keys.get(k, ANY) for k in ("node", "device", "quantity")}
        )
        return JSONResponse({"removed": [self.describe(item) for item in removed]})

    async def get(self, request: Request) -> Response:
        active = self.engine.overrides.active(self.engine.clock())
        return JSONResponse({"overrides": [self.describe(item) for item in active]})

    async def dispatch(self, request: Request) -> Response:
        handler = {"GET": self.get, "POST": self.post, "DELETE": self.delete}[request.method]
        try:
            return await handler(request)
        except ControlError as exc:
            return exc.response()
        except ValidationError as exc:
            return ControlError.from_validation(exc, "Invalid override").response()


def _check_value(metric: str, quantity: Quantity, given: float, value: float) -> None:
    """A 422 naming ``value`` when ``value`` (canonical) is not one ``quantity`` can take."""
    states = _STATES.get(quantity)
    if states is not None and value not in states:
        raise ControlError(
            422,
            "Value out of range",
            f"{metric} must be 0 or 1, got {given:g}",
            "value",
        )
    low, high = _LIMITS[quantity]
    if not low <= value <= high:
        raise ControlError(
            422,
            "Value out of range",
            f"{metric} must be between {low:g} and {high:g} {quantity.unit}, got {value:g}",
            "value",
        )


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


def control_routes(engine: ExporterEngine) -> list[Route]:
    control = OverrideControl(engine)
    return [Route("/control/override", control.dispatch, methods=["GET", "POST", "DELETE"])]
