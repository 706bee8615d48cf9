"""A FastAPI app served in memory: its lifespan runs, requests go through httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI

BASE_URL = "http://nufi.test"


@asynccontextmanager
async def serving(app: FastAPI, *, client_timeout: float = 5.0) -> AsyncIterator[httpx.AsyncClient]:
    """A client for `app` inside its lifespan: the same app a replica runs, without a socket."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url=BASE_URL, timeout=client_timeout
        ) as client:
            yield client
