"""A tiny HTTP + WebSocket server the dev cluster runs as a mapped container image in tests.

`python echo_backend.py PORT [ARGS...]`. At start it writes `env.json` (pid, argv, environment) into
its working directory. Behaviour is steered by its environment:
FAIL_READY=1 makes /healthz answer 503; EXIT_AFTER=<s> exits with code 3 after that long;
IGNORE_TERM=1 ignores SIGTERM and serves nothing; SPAWN_CHILD=1 starts a child process (its pid
goes into env.json).
Every /healthz call appends a line to `probes`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect


async def healthz(_: Request) -> Response:
    with open("probes", "a") as probes:  # noqa: ASYNC230 - one short line, in a test backend
        probes.write("probe\n")
    if os.environ.get("FAIL_READY") == "1":
        return PlainTextResponse("not ready", status_code=503)
    return PlainTextResponse("ok")


async def echo(request: Request) -> Response:
    body = await request.body()
    # `?set_cookie=name=value`: the answer sets that cookie, as a lab's login would.
    cookie = request.query_params.get("set_cookie")
    return JSONResponse(
        {
            "pid": os.getpid(),
            "pod": os.environ.get("HOSTNAME"),
            "method": request.method,
            "raw_path": request.scope["raw_path"].decode(),
            "query": request.scope["query_string"].decode(),
            "body": body.decode(),
            "headers": {key: value for key, value in request.headers.items()},
        },
        headers={"x-backend": "echo"} | ({"set-cookie": cookie} if cookie else {}),
    )


async def ws_echo(websocket: WebSocket) -> None:
    await websocket.accept(subprotocol=(websocket.scope.get("subprotocols") or [None])[0])
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("text") is not None:
                await websocket.send_text(f"echo:{message['text']}:{os.getpid()}")
            elif message.get("bytes") is not None:
                await websocket.send_bytes(b"echo:" + message["bytes"])
    except WebSocketDisconnect:
        return


def main() -> None:
    port = int(sys.argv[1])
    info: dict[str, object] = {
        "pid": os.getpid(),
        "argv": sys.argv,
        "env": dict(os.environ),
        "cwd": os.getcwd(),
    }
    if os.environ.get("SPAWN_CHILD") == "1":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        info["child"] = child.pid
    Path("env.json").write_text(json.dumps(info))
    print(f"echo backend {os.getpid()} starting on port {port}", flush=True)
    if os.environ.get("IGNORE_TERM") == "1":
        # A program that will not stop when asked: only SIGKILL ends it (it serves nothing meanwhile).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        threading.Event().wait()
    exit_after = os.environ.get("EXIT_AFTER")
    if exit_after:
        threading.Timer(float(exit_after), lambda: os._exit(3)).start()
    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            WebSocketRoute("/ws", ws_echo),
            Route("/{rest:path}", echo, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
        ]
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
