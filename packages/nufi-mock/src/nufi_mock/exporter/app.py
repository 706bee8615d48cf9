"""The exporter's HTTP face: /metrics for Prometheus, /control/override and /control/absent for tests
and demos, /control/load for the workloads that heat the devices, /healthz."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import uvicorn
from prometheus_client.exposition import generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from .absent_control import absence_routes
from .collector import metrics_registry
from .config import ExporterConfig
from .control import control_routes
from .engine import ExporterEngine
from .load_control import load_routes
from .profiles import make_profile

# The classic text format: what the vendors' exporters serve, and the one that keeps names with colons
# (RBLN_DEVICE_STATUS:*) intact whatever the scraper asks for.
TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_GRACEFUL_SHUTDOWN_SECONDS = 2


def create_app(engine: ExporterEngine) -> Starlette:
    registry = metrics_registry(engine, engine.config.label_names)

    async def metrics(_: Request) -> Response:
        return Response(generate_latest(registry), media_type=TEXT_CONTENT_TYPE)

    async def healthz(_: Request) -> Response:
        return PlainTextResponse("ok")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        stop = asyncio.Event()
        ticking = asyncio.create_task(engine.run(stop), name="exporter steps")
        try:
            yield
        finally:
            stop.set()
            await ticking
            await engine.close()

    routes = [
        Route("/metrics", metrics),
        Route("/healthz", healthz),
        *control_routes(engine),
        *absence_routes(engine),
        *load_routes(engine),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def build_engine(config: ExporterConfig) -> ExporterEngine:
    return ExporterEngine(config, make_profile(config.profile, config.naming, quirks=config.quirks))


def serve(engine: ExporterEngine) -> None:
    """Run until SIGTERM or Ctrl-C (uvicorn handles both)."""
    config = engine.config
    port = config.port if config.port is not None else engine.profile.default_port
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(engine),
            host=config.host,
            port=port,
            log_config=None,
            access_log=False,
            server_header=False,
            lifespan="on",
            timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_SECONDS,
        )
    )
    server.run()
