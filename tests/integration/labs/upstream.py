"""A small real server standing in for a lab behind its Service: it says what it was asked, streams,
redirects, and echoes WebSocket messages under the subprotocol it was offered, on Jupyter's socket
paths (`.../socket`) and code-server's (`/stable-<commit>?reconnectionToken=...`, at its root)."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

STREAM_CHUNKS = 5
# The bodies of uploads to `.../record` that arrived whole, in order (the server runs in a thread of
# the test process, so tests read this list directly).
RECORDED: list[bytes] = []


async def echo(request: Request) -> Response:
    path = request.url.path
    if path.endswith("/stream"):
        return StreamingResponse(_chunks(), media_type="text/plain")
    if path.endswith("/redirect"):
        target = request.query_params.get("to", "/elsewhere")
        return RedirectResponse(target, status_code=302)
    if path.endswith("/big.html"):
        # Far more than one network read: it must arrive whole, its links put back.
        behind = path[: path.index("/proxy/") + len("/proxy")] if "/proxy/" in path else ""
        lines = int(request.query_params.get("lines", BIG_PAGE_LINES))
        lab = behind + path[len(behind) : -len("big.html")]
        return StreamingResponse(_big_page(lab, lines), media_type="text/html")
    if path.endswith("/page.html"):
        # Served behind a path (as the API server's services proxy serves a pod), the page's absolute
        # links carry that path, the way the API server rewrites them.
        behind = path[: path.index("/proxy/") + len("/proxy")] if "/proxy/" in path else ""
        lab = path[len(behind) : -len("page.html")]
        page = (
            f"<html><a href='{behind}{lab}tree'>tree</a> "
            f'<script src="{behind}{lab}static/a.js"></script></html>'
        )
        return Response(page, media_type="text/html")
    digest = hashlib.sha256()
    size = 0
    received: list[bytes] = []
    async for chunk in request.stream():
        if chunk:
            received.append(chunk)
            size += len(chunk)
            digest.update(chunk)
    if path.endswith("/record"):
        RECORDED.append(b"".join(received))
    body: dict[str, Any] = {
        "method": request.method,
        "path": path,
        "raw_path": request.scope.get("raw_path", b"").decode("latin-1"),
        "query": request.url.query,
        "headers": [[k, v] for k, v in request.headers.items()],
        "body_bytes": size,
        "body_sha256": digest.hexdigest(),
    }
    response = JSONResponse(body, status_code=201 if request.method == "POST" else 200)
    # A header the upstream marks hop-by-hop, and one that is: neither may reach the caller.
    response.headers["connection"] = "x-upstream-hop"
    response.headers["x-upstream-hop"] = "1"
    response.headers["x-upstream-end"] = "kept"
    response.set_cookie("_xsrf", "lab-cookie", path="/")
    # A lab runs what its owner chose: it may try to plant its owner's dashboard session.
    response.set_cookie("nufi_session", "planted-by-the-lab", path="/")
    return response


BIG_PAGE_LINES = 8 * 1024 * 1024 // 48


def big_page_line(index: int, lab: str) -> bytes:
    """Line `index` of big.html, as served (`lab`: the lab's path, behind the services proxy's or not)."""
    return f"<p><a href='{lab}x'>{index:08d}</a></p>\n".encode()


def big_page(lab: str, lines: int) -> bytes:
    return b"".join(big_page_line(i, lab) for i in range(lines))


async def _big_page(lab: str, lines: int) -> Any:
    for start in range(0, lines, 4096):
        yield b"".join(big_page_line(i, lab) for i in range(start, min(start + 4096, lines)))
        await asyncio.sleep(0)


async def _chunks() -> Any:
    for index in range(STREAM_CHUNKS):
        yield f"chunk {index}\n".encode()
        await asyncio.sleep(0.05)


async def socket(websocket: WebSocket) -> None:
    offered = websocket.scope.get("subprotocols") or []
    await websocket.accept(subprotocol=offered[0] if offered else None)
    await websocket.send_json(
        {
            "path": websocket.url.path,
            "cookie": websocket.headers.get("cookie"),
            "authorization": websocket.headers.get("authorization"),
        }
    )
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("text") == "close please":
                await websocket.close(code=4001)
                return
            if message.get("bytes") is not None:
                await websocket.send_bytes(message["bytes"][::-1])
            else:
                await websocket.send_text(f"echo: {message.get('text')}")
    except WebSocketDisconnect:
        return


app = Starlette(
    routes=[
        WebSocketRoute("/{path:path}/socket", socket),
        WebSocketRoute("/stable-{commit}", socket),
        Route("/{path:path}", echo, methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]),
    ]
)
