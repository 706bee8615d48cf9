"""A small server answering as code-server does for its activity, one per lab path
(`/<namespace>/<service>/...`, the Services a `ClusterDnsRoute` template with those fields reaches):
`GET /healthz` is `{"status": "alive"|"expired", "lastHeartbeat": <ms>}` and does not beat itself, any
other request beats, and a beat is kept for a minute (code-server's `Heart`, anchors §4.3: 0 until the
first use). A lab named `hang-*` never answers its health in time; one named `slow-*` holds each
health answer until `hold_for` of them are waiting, so a test sees how many were read at once."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

HEARTBEAT_MS = 60_000


@dataclass
class CodeServers:
    beats: dict[str, int] = field(default_factory=dict)
    health_reads: dict[str, int] = field(default_factory=dict)
    waiting: int = 0
    most_waiting: int = 0
    # How many `slow-*` health reads to hold until they are all in (or `hold_seconds` passes).
    hold_for: int = 0
    hold_seconds: float = 5.0
    _all_in: asyncio.Event | None = None

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{ns}/{lab}/{rest:path}", self._answer)])

    async def _answer(self, request: Request) -> Response:
        lab = f"{request.path_params['ns']}/{request.path_params['lab']}"
        if request.path_params["rest"] != "healthz":
            now = int(time.time() * 1000)
            if now - self.beats.get(lab, 0) >= HEARTBEAT_MS:
                self.beats[lab] = now
            return Response("<html>workbench</html>", media_type="text/html")
        self.health_reads[lab] = self.health_reads.get(lab, 0) + 1
        if request.path_params["lab"].startswith("slow-"):
            await self._hold()
        if request.path_params["lab"].startswith("hang-"):
            await asyncio.sleep(30)
        beat = self.beats.get(lab, 0)
        alive = int(time.time() * 1000) - beat < HEARTBEAT_MS
        return JSONResponse({"status": "alive" if alive else "expired", "lastHeartbeat": beat})

    async def _hold(self) -> None:
        if self._all_in is None:
            self._all_in = asyncio.Event()  # made in the server's own loop
        self.waiting += 1
        self.most_waiting = max(self.most_waiting, self.waiting)
        if self.waiting >= self.hold_for:
            self._all_in.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_in.wait(), self.hold_seconds)
        self.waiting -= 1
