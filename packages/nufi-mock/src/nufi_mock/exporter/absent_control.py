"""``/control/absent``: make a device, or every device of a node, fall silent: its series vanish from
/metrics (as when a GPU falls off the bus) until the absence is deleted or runs out.

POST   {"node", "device" (null or missing = every device of the node), "duration_seconds" (optional)}
       201 for a new absence, 200 when it replaces one for the same node and device
DELETE with no body ends every absence; with a body, those matching each key it names
       ({"node": ..., "device": null} names the node-wide absence, a missing key matches anything)
GET    lists the active absences
The device plugin is not told: the node's capacity stays, fewer devices report.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .absence import Absence
from .control import ControlError, json_body, known_device, known_node
from .engine import ExporterEngine
from .overrides import ANY

_EXAMPLE = '{"node": "lpu-node-1", "device": 3}'


class AbsenceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node: str
    device: str | int | None = None
    duration_seconds: float | None = Field(default=None, gt=0, allow_inf_nan=False)


class AbsenceSelector(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node: str | None = None
    device: str | int | None = None


class AbsenceControl:
    def __init__(self, engine: ExporterEngine) -> None:
        self.engine = engine

    def describe(self, item: Absence) -> dict[str, Any]:
        now = self.engine.clock()
        return {
            "node": item.node,
            "device": None if item.device is None else self.engine.profile.device_label(item.device),
            "expires_in_seconds": None if item.expires_at is None else round(item.expires_at - now, 3),
        }

    async def post(self, request: Request) -> Response:
        wanted = AbsenceRequest.model_validate(await json_body(request, required=True, example=_EXAMPLE))
        node = known_node(self.engine, wanted.node)
        device = known_device(self.engine, node, wanted.device)
        expires = None if wanted.duration_seconds is None else self.engine.clock() + wanted.duration_seconds
        item = Absence(node, device, expires)
        replaced = self.engine.absences.put(item)
        return JSONResponse(self.describe(item), status_code=200 if replaced else 201)

    async def delete(self, request: Request) -> Response:
        body = await json_body(request, required=False, example=_EXAMPLE)
        selector = AbsenceSelector.model_validate(body or {})
        given = selector.model_fields_set
        node = known_node(self.engine, selector.node) if selector.node is not None else None
        keys: dict[str, Any] = {}
        if "node" in given and node is not None:
            keys["node"] = node
        if "device" in given:
            if selector.device is not None and node is None:
                raise ControlError(422, "Device without node", "name the node of the device", "node")
            keys["device"] = (
                None if selector.device is None else known_device(self.engine, node or "", selector.device)
            )
        removed = self.engine.absences.remove(node=keys.get("node", ANY), device=keys.get("device", ANY))
        return JSONResponse({"removed": [self.describe(item) for item in removed]})

    async def get(self, _: Request) -> Response:
        active = self.engine.absences.active(self.engine.clock())
        return JSONResponse({"absent": [self.describe(item) for item in active]})

    async def dispatch(self, request: Request) -> Response:
        handler = {"GET": self.get, "POST": self.post, "DELETE": self.delete}[request.method]
        try:
            return await handler(request)
        except ControlError as exc:
            return exc.response()
        except ValidationError as exc:
            return ControlError.from_validation(exc, "Invalid absence").response()


def absence_routes(engine: ExporterEngine) -> list[Route]:
    control = AbsenceControl(engine)
    return [Route("/control/absent", control.dispatch, methods=["GET", "POST", "DELETE"])]
