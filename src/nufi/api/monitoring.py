"""Monitoring of every device type: the overview, a snapshot per type, and time ranges."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

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


@router.get(
    "/overview", summary="Every enabled device type with its headline figures", responses=_UNAVAILABLE
)
async def overview(principal: CurrentPrincipal, monitoring: Monitoring) -> OverviewView:
    return OverviewView.of(await monitoring.overview(principal))


@router.get("/{device_type_id}", summary="Nodes and devices of a type right now", responses=_RESPONSES)
async def snapshot(device_type_id: str, principal: CurrentPrincipal, monitoring: Monitoring) -> SnapshotView:
    return SnapshotView.of(await monitoring.snapshot(principal, device_type_id))


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
