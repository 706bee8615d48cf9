"""`nufi serve`'s app in a process of its own for `bench.dashboard_page`, with a bench-only view of
what that process holds.

The benchmark measures the server alone: its browser client (Playwright) and event loop must not
share the process whose memory it reads. This module runs the app `nufi serve` runs
(`nufi.cli.build_server`, settings from the `NUFI_` environment) under uvicorn on 127.0.0.1, wrapped
in an ASGI layer that answers `GET /_bench/footprint` and `GET /_bench/clients` itself and passes
everything else to the app, so the product's routes stay as they are. The footprint is JSON:
Python's allocated blocks after a collection, the NiceGUI clients and elements alive, what glibc's
malloc has handed out and keeps (`mallinfo2`, every arena), pymalloc's arenas (held now and at
most) and the bytes in their blocks, the threads, and whether the cluster
cache serves. Query parameters: `trim=1` runs `malloc_trim(0)` first, `types=N` adds the N most
numerous object types, and with `NUFI_BENCH_TRACEMALLOC=1` in the environment `traced=N` adds
tracemalloc's total and its N largest allocation sites. RSS is read by the benchmark
from `/proc/<pid>/status`.

Run: `python -m bench.dashboard_server` with the `NUFI_` settings, `NUFI_HOST` and `NUFI_PORT` among
them (the benchmark starts and stops it by PID).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import gc
import os
import sys
import tempfile
import tracemalloc
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import uvicorn
from nicegui import Client
from nicegui.element import Element
from pydantic import SecretStr
from starlette.responses import JSONResponse

from nufi.cli.server import _Faces, _server_options, build_server
from nufi.config import ENV_PREFIX, Settings
from nufi.logging import configure_logging
from nufi.services import Services

FOOTPRINT_PATH = "/_bench/footprint"
# Only the NiceGUI clients' count: cheap enough to poll (the footprint walks every object).
CLIENTS_PATH = "/_bench/clients"
TRACEMALLOC_ENV = "NUFI_BENCH_TRACEMALLOC"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def settings_env(settings: Settings) -> dict[str, str]:
    """The `NUFI_` environment that gives a server process `settings` (the fields set explicitly)."""
    env: dict[str, str] = {}
    for name in settings.model_fields_set:
        value = getattr(settings, name)
        if value is None:
            continue
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        env[f"{ENV_PREFIX}{name.upper()}"] = str(value)
    return env


class _MallInfo2(ctypes.Structure):
    # glibc's `struct mallinfo2` (2.33+), every field a size_t.
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_LIBC = ctypes.CDLL("libc.so.6")


def malloc_figures() -> dict[str, int]:
    """glibc's view over all arenas: bytes handed out (heap and mmapped), bytes free inside its heaps."""
    mallinfo2 = getattr(_LIBC, "mallinfo2", None)
    if mallinfo2 is None:
        return {}
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return {
        "heap_bytes": int(info.arena),
        "in_use_bytes": int(info.uordblks),
        "free_bytes": int(info.fordblks),
        "mmapped_bytes": int(info.hblkhd),
        "mmapped_chunks": int(info.hblks),
    }


def arenas() -> int:
    """The malloc arenas in use: glibc's own count is private, so count the threads' heaps' mappings
    (secondary arenas are 64 MiB-aligned anonymous regions); an estimate, printed for comparison."""
    count = 0
    with contextlib.suppress(OSError):
        for row in Path("/proc/self/maps").read_text().splitlines():
            fields = row.split()
            if len(fields) == 5 and fields[1].startswith("rw"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                if start % (64 << 20) == 0 and end - start <= 64 << 20:
                    count += 1
    return count


_PYMALLOC_FIELDS = {
    "# arenas allocated current": "arenas",
    "# arenas highwater mark": "arenas_highwater",
    "# bytes in allocated blocks": "allocated_bytes",
    "# bytes in available blocks": "available_bytes",
}


def pymalloc_figures() -> dict[str, int]:
    """pymalloc's own arenas (mmapped directly, so glibc's figures never see them): how many are held
    now and at most, and the bytes in their used and free blocks. CPython only prints these
    (`sys._debugmallocstats` writes to the C stderr), so fd 2 is pointed at a file for the call."""
    answer: dict[str, int] = {}
    with tempfile.TemporaryFile(mode="w+") as capture:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(capture.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        for row in capture:
            label, _, value = row.partition("=")
            name = _PYMALLOC_FIELDS.get(label.strip())
            if name is not None:
                answer[name] = int(value.strip().replace(",", ""))
    return answer


def footprint(services: Services | None, *, trim: bool, types: int, traced: int) -> dict[str, object]:
    gc.collect()
    if trim:
        _LIBC.malloc_trim(0)
    objects = gc.get_objects()
    answer: dict[str, object] = {
        "pid": os.getpid(),
        "blocks": sys.getallocatedblocks(),
        "clients": len(Client.instances),
        "elements": sum(1 for obj in objects if isinstance(obj, Element)),
        "gc_objects": len(objects),
        "threads": len(os.listdir("/proc/self/task")),
        "arenas": arenas(),
        "malloc": malloc_figures(),
        "pymalloc": pymalloc_figures(),
        "cluster_serving": services is not None
        and (services.cluster_cache is None or services.cluster_cache.serving),
    }
    if types:
        counts = collections.Counter(type(obj).__qualname__ for obj in objects)
        answer["types"] = dict(counts.most_common(types))
    del objects
    if traced and tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot()
        stats = snapshot.statistics("lineno")
        answer["traced_bytes"] = sum(stat.size for stat in stats)
        answer["traced_top"] = [
            {"where": str(stat.traceback), "bytes": stat.size, "count": stat.count} for stat in stats[:traced]
        ]
    return answer


class WithFootprint:
    """`app` with the bench's two routes answered ahead of it; every other scope goes to `app`."""

    def __init__(self, app: ASGIApp, services: Callable[[], Services | None]) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == FOOTPRINT_PATH:
            query = parse_qs(scope.get("query_string", b"").decode())

            def number(name: str) -> int:
                return int(query.get(name, ["0"])[0])

            body = footprint(
                self.services(), trim=number("trim") > 0, types=number("types"), traced=number("traced")
            )
            await JSONResponse(body)(scope, receive, send)
            return
        if scope["type"] == "http" and scope["path"] == CLIENTS_PATH:
            await JSONResponse({"clients": len(Client.instances)})(scope, receive, send)
            return
        await self.app(scope, receive, send)


def main() -> None:
    if os.environ.get(TRACEMALLOC_ENV) == "1":
        tracemalloc.start(1)
    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    app = build_server(settings, _Faces(api=True, dashboard=True))
    wrapped = WithFootprint(app, lambda: getattr(app.state, "services", None))
    # uvicorn as `nufi serve` runs it, on NUFI_HOST / NUFI_PORT.
    uvicorn.Server(uvicorn.Config(wrapped, lifespan="on", **_server_options(settings))).run()


if __name__ == "__main__":
    main()
