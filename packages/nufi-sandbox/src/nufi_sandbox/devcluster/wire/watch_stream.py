"""Watches: the newline-delimited JSON event stream of `?watch=true`, with selectors applied per watcher.

Each line is a `watch.Event` (`{"type", "object"}`) as the API server's watch handler writes it; a version
too old to resume from answers one ERROR event carrying a 410 Expired Status, as the watch cache does.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Callable

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.storage.store import Obj, Store, WatchEvent
from nufi_sandbox.devcluster.wire.routing import Target

Predicate = Callable[[Obj], bool]


def watch_response(store: Store, request: Request, t: Target, predicate: Predicate | None) -> Response:
    """Stream the events of `t` that `predicate` lets through, as `?watch=true` answers."""
    params = request.query_params
    raw_rv = params.get("resourceVersion", "")
    timeout = float(params.get("timeoutSeconds") or 1800)
    initial: list[Obj] = []
    try:
        if raw_rv in ("", "0"):
            initial, _, list_rv = store.list(t.rt, t.namespace, predicate=predicate)
            sub = store.subscribe(list_rv)
        else:
            sub = store.subscribe(int(raw_rv))
    except errors.ApiError as exc:
        if exc.code != 410:
            raise
        gone = exc

        async def expired() -> AsyncIterator[bytes]:
            yield _line("ERROR", gone.status())

        return StreamingResponse(expired(), media_type="application/json")
    except ValueError:
        raise errors.bad_request(f"invalid resourceVersion {raw_rv!r}") from None

    async def stream() -> AsyncIterator[bytes]:
        try:
            for obj in initial:
                yield _line("ADDED", obj)
            deadline = asyncio.get_running_loop().time() + timeout
            while True:
                remaining = deadline - asyncio.get_running_loop().time()
                if remaining <= 0:
                    return
                try:
                    event = await asyncio.wait_for(sub.queue.get(), timeout=min(remaining, 5.0))
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    continue
                translated = translate(t, event, predicate)
                if translated is not None:
                    yield _line(*translated)
        finally:
            store.unsubscribe(sub)

    return StreamingResponse(stream(), media_type="application/json")


def translate(t: Target, event: WatchEvent, predicate: Predicate | None) -> tuple[str, Obj] | None:
    """Decide what one store event means to one watcher, as the watch cache does for selectors."""
    if event.rt_key != t.rt.key or (t.namespace is not None and event.namespace != t.namespace):
        return None
    obj = copy.deepcopy(event.object)
    obj["apiVersion"] = t.rt.api_version
    if predicate is None:
        return event.type, obj
    now = predicate(event.object)
    before = event.old is not None and predicate(event.old)
    if event.type == "ADDED":
        return ("ADDED", obj) if now else None
    if event.type == "DELETED":
        return ("DELETED", obj) if before or now else None
    if now and not before:
        return "ADDED", obj
    if before and not now:
        return "DELETED", obj
    return ("MODIFIED", obj) if now else None


def _line(kind: str, obj: Obj) -> bytes:
    return json.dumps({"type": kind, "object": obj}, separators=(",", ":")).encode() + b"\n"
