"""Monitoring of every device type: the overview, a snapshot per type, and time ranges.

The overview and the snapshot are polled by dashboards, so they answer with an `ETag`, a strong hash of
the body's bytes, and a request whose `If-None-Match` names it gets a 304 without a body.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel

from nufi.api.auth import AUTH_RESPONSES, CurrentPrincipal
from nufi.api.schemas.monitoring import OverviewView, SnapshotView
from nufi.api.schemas.monitoring_range import RangeView
from nufi.api.schemas.problem import NOT_FOUND, ResponseDocs, problem
from nufi.api.services import get_monitoring
from nufi.monitoring import MonitoringService

router = APIRouter(prefix="/api/v1/monitoring", tags=["monitoring"], responses=AUTH_RESPONSES)
Monitoring = Annotated[MonitoringService, Depends(get_monitoring)]

_UNAVAILABLE: ResponseDocs = {
    503: problem(
        "Prometheus answered none of the queries (the problem names `prometheus`), "
        "or the identity provider's keys cannot be fetched."
    ),
}
_RESPONSES: ResponseDocs = {404: NOT_FOUND, **_UNAVAILABLE}

# Browsers may keep a body, and must ask again (with If-None-Match) before showing it.
CACHE_CONTROL = "private, no-cache"
_ENTITY_TAG = re.compile(r'(?:W/)?("[^"]*")')
_HEADERS: dict[str, Any] = {
    "ETag": {
        "description": "a strong hash of the body's bytes; send it back as `If-None-Match`",
        "schema": {"type": "string"},
        "required": True,
    },
    "Cache-Control": {"description": f"`{CACHE_CONTROL}`", "schema": {"type": "string"}, "required": True},
}
_POLLED: ResponseDocs = {
    200: {"headers": _HEADERS},
    304: {
        "description": "Unchanged: `If-None-Match` names the body's current `ETag`. No body.",
        "headers": _HEADERS,
    },
}


@router.get(
    "/overview",
    summary="Every enabled device type with its headline figures",
    response_model=OverviewView,
    responses={**_POLLED, **_UNAVAILABLE},
)
async def overview(request: Request, principal: CurrentPrincipal, monitoring: Monitoring) -> Response:
    return conditional(request, OverviewView.of(await monitoring.overview(principal)))


@router.get(
    "/{device_type_id}",
    summary="Nodes and devices of a type right now",
    response_model=SnapshotView,
    responses={**_POLLED, **_RESPONSES},
)
async def snapshot(
    device_type_id: str, request: Request, principal: CurrentPrincipal, monitoring: Monitoring
) -> Response:
    return conditional(request, SnapshotView.of(await monitoring.snapshot(principal, device_type_id)))


def conditional(request: Request, view: BaseModel) -> Response:
    """`view` as JSON with its ETag, or a 304 without a body when `If-None-Match` names that ETag."""
    body = view.model_dump_json().encode()
    tag = entity_tag(body)
    headers = {"ETag": tag, "Cache-Control": CACHE_CONTROL}
    if none_match(request.headers.getlist("if-none-match"), tag):
        return Response(status_code=304, headers=headers)
    return Response(content=body, media_type="application/json", headers=headers)


def entity_tag(body: bytes) -> str:
    """A strong entity tag for `body`: its SHA-256, base64url, quoted."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
    return f'"{digest}"'


def none_match(values: list[str], tag: str) -> bool:
    """Whether If-None-Match (every header line of it) matches `tag`: `*`, or a listed tag equal to it
    by the weak comparison RFC 9110 prescribes for If-None-Match (`W/` ignored)."""
    for value in values:
        if value.strip() == "*":
            return True
        if tag in _ENTITY_TAG.findall(value):
            return True
    return False


@router.get(
    "/{device_type_id}/range",
    summary="One metric of a type over time, per device or per node",
    responses={**_RESPONSES, 422: problem("A parameter is invalid; `field` names it.")},
)
async def history(
    device_type_id: str,
    principal: CurrentPrincipal,
    monitoring: Monitoring,
    metric: Annotated[str, Query(description="utilization, memory, temperature or power")],
    start: Annotated[
        str | None, Query(description="RFC 3339 or Unix seconds; default an hour before end")
    ] = None,
    end: Annotated[str | None, Query(description="RFC 3339 or Unix seconds; default now")] = None,
    step: Annotated[
        str | None, Query(description="seconds or a duration such as 30s, 5m; default: at most 500 points")
    ] = None,
    node: Annotated[str | None, Query(description="only this node (exact name)")] = None,
    device: Annotated[str | None, Query(description="only this device (exact name)")] = None,
    by: Annotated[str | None, Query(description="device (default) or node")] = None,
) -> RangeView:
    result = await monitoring.history(
        principal,
        device_type_id,
        metric=metric,
        start=start,
        end=end,
        step=step,
        by=by,
        node=node,
        device=device,
    )
    return RangeView.of(result)
