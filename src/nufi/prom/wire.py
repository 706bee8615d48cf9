"""How NuFi's values and credentials are written for Prometheus' HTTP API: instants, timeouts, sizes
in messages, and the bearer token or basic credentials of the settings."""

from __future__ import annotations

import math
from collections.abc import Generator
from datetime import datetime

import httpx

from nufi.config import Settings

# A time as the gateway takes one: an aware datetime or Unix seconds.
Instant = datetime | float


class BearerAuth(httpx.Auth):
    def __init__(self, token: str) -> None:
        self._header = f"Bearer {token}"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = self._header
        yield request


def auth_from(settings: Settings) -> httpx.Auth | None:
    if settings.prometheus_bearer_token is not None:
        return BearerAuth(settings.prometheus_bearer_token.get_secret_value())
    if settings.prometheus_username is not None:
        password = settings.prometheus_password.get_secret_value() if settings.prometheus_password else ""
        return httpx.BasicAuth(settings.prometheus_username, password)
    return None


def format_timeout(seconds: float) -> str:
    # Whole milliseconds: Prometheus' durations take no fractions (`1.5s` is refused, `1500ms` is not).
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"a query timeout must be a positive number of seconds, got {seconds}")
    return f"{max(round(seconds * 1000), 1)}ms"


def format_bytes(count: int) -> str:
    """`count` bytes for a person: "64 MiB", "1.5 KiB", "1000 bytes"."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= size:
            value = count / size
            return f"{value:.0f} {unit}" if count % size == 0 else f"{value:.1f} {unit}"
    return f"{count} bytes"


def format_instant(value: Instant) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"time {value.isoformat()} has no timezone; pass an aware datetime")
        return repr(value.timestamp())
    if not math.isfinite(value):
        raise ValueError(f"time must be finite Unix seconds, got {value}")
    return repr(float(value))
