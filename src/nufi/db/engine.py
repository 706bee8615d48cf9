"""The async engine behind every database session."""

from __future__ import annotations

from typing import Any

from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from nufi.db.failures import install_failure_translation
from nufi.db.sqlite import install_sqlite_hooks
from nufi.errors import ValidationFailed

_URL_SETTING = "NUFI_DATABASE_URL"
# The first driver of each backend is the one installed with NuFi.
_ASYNC_DRIVERS = {"sqlite": ("aiosqlite",), "postgresql": ("asyncpg", "psycopg")}
_EXAMPLES = "sqlite+aiosqlite:///./nufi.db or postgresql+asyncpg://user:password@host:5432/nufi"


def parse_database_url(url: str) -> URL:
    """The URL as SQLAlchemy understands it, with an async driver filled in when none is named.

    ValidationFailed (naming the setting) when it is not a URL of a supported database and driver.
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValidationFailed(
            code="db.url_invalid", field=_URL_SETTING, params={"examples": _EXAMPLES}
        ) from None
    backend = parsed.get_backend_name()
    if backend not in _ASYNC_DRIVERS:
        raise ValidationFailed(
            code="db.backend_unsupported",
            field=_URL_SETTING,
            params={"backend": backend, "examples": _EXAMPLES},
        )
    if "+" not in parsed.drivername:
        # Plain `postgresql://` DSNs are what most tooling hands out; pick the async driver we ship.
        return parsed.set(drivername=f"{backend}+{_ASYNC_DRIVERS[backend][0]}")
    if parsed.get_driver_name() not in _ASYNC_DRIVERS[backend]:
        choices = " or ".join(f"{backend}+{driver}" for driver in _ASYNC_DRIVERS[backend])
        raise ValidationFailed(
            code="db.driver_not_async",
            field=_URL_SETTING,
            params={"driver": parsed.drivername, "choices": choices},
        )
    return parsed


def display_url(url: str | URL) -> str:
    """The URL fit for logs and messages: the password, if any, masked."""
    try:
        parsed = url if isinstance(url, URL) else make_url(url)
    except ArgumentError:
        return "<unparseable database URL>"
    return parsed.render_as_string(hide_password=True)


def create_database_engine(url: str | URL, **options: Any) -> AsyncEngine:
    """An engine for `url`, set up so that concurrent writers queue instead of failing.

    `options` go to `create_async_engine` (e.g. `echo=True`).
    """
    parsed = url if isinstance(url, URL) else parse_database_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_async_engine(parsed, **options)
        install_sqlite_hooks(engine.sync_engine)
    else:
        # Server connections die with failovers and idle timeouts; test each one before handing it out.
        options.setdefault("pool_pre_ping", True)
        engine = create_async_engine(parsed, **options)
    install_failure_translation(engine.sync_engine, display_url(parsed))
    return engine
