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

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .absence import Absence
from .control_resource import ControlResource, json_body, known_device, known_node, selected_place
from .engine import ExporterEngine

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


class AbsenceControl(ControlResource):
    path = "/control/absent"
    invalid = "Invalid absence"

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
        removed = self.engine.absences.remove(**selected_place(self.engine, selector))
        return JSONResponse({"removed": [self.describe(item) for item in removed]})

    async def get(self, _: Request) -> Response:
        active = self.engine.absences.active(self.engine.clock())
        return JSONResponse({"absent": [self.describe(item) for item in active]})


def absence_routes(engine: ExporterEngine) -> list[Route]:
    return [AbsenceControl(engine).route()]
