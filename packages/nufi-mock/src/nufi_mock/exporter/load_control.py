"""``/control/load``: the utilisation a workload's own work causes on the devices it holds.

POST   {"source", "node" (optional with one simulated node), "devices", "utilization", "ttl_seconds"}
       replaces that source's report for that node; 201 for a new source, 200 for a renewed one
DELETE with no body forgets every report; with {"source": ...} only that source's
GET    lists the active reports
``devices`` name devices as the kubelet or a user does: plugin id (``lpu0``), index, the profile's device
label or the UUID. A source keeps reporting while it works; one that stops expires after ``ttl_seconds``.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .control_resource import ControlError, ControlResource, json_body
from .engine import ExporterEngine
from .load import Load

MAX_TTL_SECONDS = 3600.0


class LoadReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, max_length=253)
    node: str | None = None
    devices: list[str | int] = Field(min_length=1, max_length=256)
    utilization: float = Field(ge=0.0, le=100.0)
    ttl_seconds: float = Field(gt=0.0, le=MAX_TTL_SECONDS)

    @field_validator("utilization", "ttl_seconds")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value


class LoadSelector(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1)


class LoadControl(ControlResource):
    path = "/control/load"
    invalid = "Invalid load report"
    # Workloads report their own load here; it moves a device only up to the model's full-load
    # temperature, unlike an override, and the sandbox's inference pods hold no token.
    steers = False

    def _node(self, node: str | None) -> str:
        nodes = self.engine.fleet.nodes
        if node is None:
            if len(nodes) == 1:
                return nodes[0]
            raise ControlError(
                422,
                "Node missing",
                f'this exporter simulates {len(nodes)} nodes ({", ".join(nodes)}); say which with "node"',
                "node",
            )
        if node not in nodes:
            raise ControlError(
                404, "Unknown node", f"node {node!r} is not simulated here; nodes: {', '.join(nodes)}", "node"
            )
        return node

    def _devices(self, node: str, names: list[str | int]) -> frozenset[int]:
        found: set[int] = set()
        for position, name in enumerate(names):
            index = self.engine.fleet.resolve(node, str(name))
            if index is None:
                raise ControlError(
                    404,
                    "Unknown device",
                    f"node {node!r} has no device {name!r}; name it by plugin id (lpu0), index, "
                    f"{self.engine.profile.device_label(0)}-style label or UUID",
                    f"devices.{position}",
                )
            found.add(index)
        return frozenset(found)

    def describe(self, item: Load) -> dict[str, Any]:
        return {
            "source": item.source,
            "node": item.node,
            "devices": [self.engine.profile.device_label(index) for index in sorted(item.devices)],
            "utilization": item.utilization,
            "expires_in_seconds": round(item.expires_at - self.engine.clock(), 3),
        }

    async def post(self, request: Request) -> Response:
        report = LoadReport.model_validate(await json_body(request, required=True, example=_EXAMPLE))
        node = self._node(report.node)
        devices = self._devices(node, report.devices)
        expires = self.engine.clock() + report.ttl_seconds
        item = Load(report.source, node, devices, report.utilization, expires)
        replaced = self.engine.loads.report(item)
        return JSONResponse(self.describe(item), status_code=201 if replaced is None else 200)

    async def delete(self, request: Request) -> Response:
        body = await json_body(request, required=False, example=_EXAMPLE)
        sources = None if body is None else [LoadSelector.model_validate(body).source]
        removed = self.engine.loads.remove(sources)
        return JSONResponse({"removed": [self.describe(item) for item in removed]})

    async def get(self, _: Request) -> Response:
        active = self.engine.loads.active(self.engine.clock())
        return JSONResponse({"loads": [self.describe(item) for item in active]})


_EXAMPLE = '{"source": "default/infer-0", "devices": ["lpu0"], "utilization": 60, "ttl_seconds": 3}'


def load_routes(engine: ExporterEngine) -> list[Route]:
    return [LoadControl(engine).route()]
