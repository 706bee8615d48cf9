"""Monitoring of every device type: the overview, a snapshot per type (paged), its stream, time ranges.

The overview and the snapshot are polled by dashboards, so they answer with an `ETag`, a weak tag hashing
the body's bytes but for its age, and a request whose `If-None-Match` names it gets a 304 without a
body. The stream sends the same page as Server-Sent Events, one per evaluation of the type, with
heartbeats between.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse

from nufi.api.auth import AUTH_RESPONSES, CurrentPrincipal
from nufi.api.conditional import CACHE_CONTROL, conditional
from nufi.api.problems import error_body, request_id_of
from nufi.api.schemas.monitoring import OverviewView, SnapshotPageView
from nufi.api.schemas.monitoring_range import RangeView
from nufi.api.schemas.problem import NOT_FOUND, ResponseDocs, problem
from nufi.api.services import get_monitoring, get_snapshot_pages
from nufi.api.snapshot_pages import RenderedPages
from nufi.errors import NufiError
from nufi.monitoring.contracts import StreamItem
from nufi.monitoring.ranges.request import MAX_POINTS, MAX_SERIES_LIMIT, MIN_POINTS, RangeQuery
from nufi.monitoring.service import MonitoringService
from nufi.monitoring.snapshots.paging import MAX_PAGE_NODES, PageQuery, page_snapshot, parse_page_query

router = APIRouter(prefix="/api/v1/monitoring", tags=["monitoring"], responses=AUTH_RESPONSES)
Monitoring = Annotated[MonitoringService, Depends(get_monitoring)]
Pages = Annotated[RenderedPages, Depends(get_snapshot_pages)]

_UNAVAILABLE: ResponseDocs = {
    503: problem(
        "Prometheus answered none of the queries (the problem names `prometheus`), "
        "or the identity provider's keys cannot be fetched."
    ),
}
_RESPONSES: ResponseDocs = {404: NOT_FOUND, **_UNAVAILABLE}

_HEADERS: dict[str, Any] = {
    "ETag": {
        "description": "a weak tag hashing the body's bytes without `age_seconds`; send it back as "
        "`If-None-Match`",
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
    view = OverviewView.of(await monitoring.overview(principal))
    return conditional(request, view, ageing={"items": {"__all__": {"age_seconds"}}})


NodeFilter = Annotated[
    str | None, Query(description="only nodes whose name contains this text (case-insensitive)")
]
Limit = Annotated[str | None, Query(description=f"nodes per page, 1 to {MAX_PAGE_NODES}; default every node")]
Sort = Annotated[
    str | None,
    Query(
        description="node (default), temperature (hottest device), utilization (busiest device) or "
        "memory (fullest device)"
    ),
]
Order = Annotated[str | None, Query(description="asc or desc; default asc by node, desc otherwise")]


@dataclass(frozen=True)
class PageAsk:
    """The page a reader asks for, as given; `query` checks it with the previous page's token."""

    node: str | None
    limit: str | None
    sort: str | None
    order: str | None

    def query(self, continue_token: str | None) -> PageQuery:
        return parse_page_query(
            node=self.node, limit=self.limit, continue_token=continue_token, sort=self.sort, order=self.order
        )


def page_ask(node: NodeFilter = None, limit: Limit = None, sort: Sort = None, order: Order = None) -> PageAsk:
    return PageAsk(node, limit, sort, order)


Asked = Annotated[PageAsk, Depends(page_ask)]


@router.get(
    "/{device_type_id}",
    summary="Nodes and devices of a type right now, filtered, sorted and paged on the server",
    response_model=SnapshotPageView,
    responses={
        **_POLLED,
        **_RESPONSES,
        410: problem("The snapshot a `continue` token pages through is no longer kept; start again."),
        422: problem("A parameter is invalid; `field` names it."),
    },
)
async def snapshot(
    device_type_id: str,
    request: Request,
    principal: CurrentPrincipal,
    monitoring: Monitoring,
    pages: Pages,
    asked: Asked,
    continue_: Annotated[
        str | None, Query(alias="continue", description="the `continue` of the previous page")
    ] = None,
) -> Response:
    query = asked.query(continue_)
    read = await monitoring.read_page(principal, device_type_id, query)
    # Keyed by the query string as sent, which is what a cached read (nufi.api.cached_reads) sees.
    rendered = pages.of((device_type_id, request.scope["query_string"], read.audience), read)
    return rendered.response(request.headers.getlist("if-none-match"), read.page.snapshot.age_seconds)


_EVENTS = (
    "Server-Sent Events: `event: snapshot` with the page as `data` (the body of the plain GET) after "
    "every evaluation of the type, `event: error` with a problem body when there is no good snapshot "
    "to send, and a `: heartbeat` comment line after NUFI_MONITORING_STREAM_HEARTBEAT_SECONDS without "
    "either. The stream ends with `event: end` when the type is deleted."
)


@router.get(
    "/{device_type_id}/stream",
    summary="A type's snapshot as it changes: one Server-Sent Event per evaluation",
    response_class=StreamingResponse,
    responses={
        200: {"description": _EVENTS, "content": {"text/event-stream": {"schema": {"type": "string"}}}},
        **_RESPONSES,
        422: problem("A parameter is invalid; `field` names it."),
    },
)
async def stream(
    device_type_id: str,
    request: Request,
    principal: CurrentPrincipal,
    monitoring: Monitoring,
    asked: Asked,
) -> StreamingResponse:
    query = asked.query(None)
    items = monitoring.stream(
        principal, device_type_id, heartbeat_seconds=monitoring.settings.stream_heartbeat_seconds
    )
    # The first item is awaited here, so an unknown type is a 404 rather than an event.
    first = await anext(items)
    return StreamingResponse(
        _events(first, items, query, request_id_of(request)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _events(
    first: StreamItem,
    items: AsyncGenerator[StreamItem, None],
    query: PageQuery,
    request_id: str | None,
) -> AsyncIterator[str]:
    try:
        yield _event(first, query, request_id)
        async for item in items:
            yield _event(item, query, request_id)
    except NufiError as exc:
        # The type is gone (or can no longer be read): say so and end.
        yield _sse("end", json.dumps(error_body(exc, request_id)))
    finally:
        await items.aclose()


def _event(item: StreamItem, query: PageQuery, request_id: str | None) -> str:
    if item is None:
        return ": heartbeat\n\n"
    if isinstance(item, NufiError):
        return _sse("error", json.dumps(error_body(item, request_id)))
    return _sse("snapshot", SnapshotPageView.of_page(page_snapshot(item, query)).model_dump_json())


def _sse(event: str, data: str) -> str:
    # JSON has no raw newlines, so one `data:` line carries the whole body.
    return f"event: {event}\ndata: {data}\n\n"


def range_query(
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
    points: Annotated[
        int | None,
        Query(
            ge=MIN_POINTS,
            le=MAX_POINTS,
            description="at most this many points per series when step is not given: what a chart draws",
        ),
    ] = None,
    series: Annotated[
        int | None,
        Query(ge=1, le=MAX_SERIES_LIMIT, description="at most this many series, the highest by `top`"),
    ] = None,
    top: Annotated[
        str | None,
        Query(description="with `series`: latest (default, the value at the end) or peak (the highest)"),
    ] = None,
) -> RangeQuery:
    """The range's query parameters as one `RangeQuery`, checked by the monitoring service."""
    return RangeQuery(metric, start, end, step, by, node, device, points, series, top)


@router.get(
    "/{device_type_id}/range",
    summary="One metric of a type over time, per device or per node",
    responses={**_RESPONSES, 422: problem("A parameter is invalid; `field` names it.")},
)
async def history(
    device_type_id: str,
    principal: CurrentPrincipal,
    monitoring: Monitoring,
    query: Annotated[RangeQuery, Depends(range_query)],
) -> RangeView:
    """The window is aligned to the step (its end rounded down to a multiple of it), so every reader
    of a range shares one Prometheus query per series family until the next step boundary."""
    return RangeView.of(await monitoring.history(principal, device_type_id, query))
