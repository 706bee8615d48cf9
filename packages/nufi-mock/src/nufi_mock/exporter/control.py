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

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .control_resource import (
    ControlError,
    ControlResource,
    json_body,
    known_device,
    known_node,
    selected_place,
)
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


class OverrideControl(ControlResource):
    path = "/control/override"
    invalid = "Invalid override"

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
        keys = selected_place(self.engine, selector)
        if "metric" in selector.model_fields_set and selector.metric is not None:
            keys["quantity"] = self._target(selector.metric).quantity
        else:
            keys["quantity"] = ANY
        removed = self.engine.overrides.remove(**keys)
        return JSONResponse({"removed": [self.describe(item) for item in removed]})

    async def get(self, request: Request) -> Response:
        active = self.engine.overrides.active(self.engine.clock())
        return JSONResponse({"overrides": [self.describe(item) for item in active]})


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


def control_routes(engine: ExporterEngine) -> list[Route]:
    return [OverrideControl(engine).route()]
