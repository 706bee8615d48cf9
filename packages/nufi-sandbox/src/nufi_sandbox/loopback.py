"""What the sandbox's own servers (dev cluster, identity provider) share: 127.0.0.1, quiet uvicorn,
plain logs."""

from __future__ import annotations

import argparse
import logging

import uvicorn
from starlette.types import ASGIApp
from uvicorn.config import LifespanType

HOST = "127.0.0.1"


def loopback_parser(prog: str, description: str, default_port: int) -> argparse.ArgumentParser:
    """An argument parser that already takes `--port` on 127.0.0.1."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--port", type=int, default=default_port, help=f"port on {HOST} (default {default_port})"
    )
    return parser


def loopback_config(
    app: ASGIApp,
    port: int,
    *,
    lifespan: LifespanType,
    ssl_certfile: str | None = None,
    ssl_keyfile: str | None = None,
) -> uvicorn.Config:
    """uvicorn on 127.0.0.1 without access logs (https with the certificate and key, when given);
    Ctrl-C waits at most 2 s for open requests."""
    return uvicorn.Config(
        app,
        host=HOST,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan=lifespan,
        timeout_graceful_shutdown=2,
        ssl_certfile=ssl_certfile,
        ssl_keyfile=ssl_keyfile,
    )


def configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
