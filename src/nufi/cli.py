"""The `nufi` command."""

from __future__ import annotations

import asyncio
import platform
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import uvicorn
from fastapi import FastAPI

from nufi import __version__
from nufi.config import Settings, load_settings
from nufi.errors import NufiError
from nufi.logging import configure_logging

if TYPE_CHECKING:
    from nufi.db import Database

app = typer.Typer(
    name="nufi",
    help="NuFi: run AI workloads on any accelerator in a Kubernetes cluster.",
    no_args_is_help=True,
    add_completion=False,
)

# Seconds to let in-flight requests finish after SIGTERM before connections are dropped.
_GRACEFUL_SHUTDOWN_SECONDS = 10


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="Address to bind (default NUFI_HOST or 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port to bind; 0 picks a free one (default NUFI_PORT or 8080).")
    ] = None,
    reload: Annotated[bool, typer.Option(help="Restart on source changes (development only).")] = False,
) -> None:
    """Run the NuFi server until interrupted (Ctrl-C or SIGTERM)."""
    overrides: dict[str, object] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    settings = _settings_or_exit(**overrides)
    configure_logging(settings.log_format, settings.log_level)
    if reload:
        _serve_with_reload(settings)
    else:
        _serve(settings)


@app.command()
def version() -> None:
    """Print the NuFi version."""
    typer.echo(f"nufi {__version__} (Python {platform.python_version()})")


db_app = typer.Typer(
    name="db",
    help="The database schema: apply migrations, show the current revision (uses NUFI_DATABASE_URL).",
    no_args_is_help=True,
)
app.add_typer(db_app)


@db_app.command("upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Option(help="Revision to upgrade to (default: the newest).")] = "head",
) -> None:
    """Apply pending schema migrations; does nothing when the schema is up to date."""

    async def run(database: Database) -> str:
        before = await database.current_revision()
        await database.upgrade(revision)
        after = await database.current_revision()
        if before == after:
            return f"{database.url}: already at revision {after}"
        return f"{database.url}: upgraded from {before or 'an empty schema'} to revision {after}"

    typer.echo(_with_database(run))


@db_app.command("current")
def db_current() -> None:
    """Print the schema revision the database is at, and whether migrations are pending."""
    from nufi.db import head_revision

    async def run(database: Database) -> str:
        current, head = await database.current_revision(), head_revision()
        if current is None:
            return f"{database.url}: no schema yet (newest is {head}); run `nufi db upgrade`"
        if current == head:
            return f"{database.url}: at revision {current} (up to date)"
        return f"{database.url}: at revision {current}, newest is {head}; run `nufi db upgrade`"

    typer.echo(_with_database(run))


def _with_database(work: Callable[[Database], Awaitable[str]]) -> str:
    from nufi.db import Database

    settings = _settings_or_exit()

    async def run() -> str:
        database = Database.from_settings(settings)
        try:
            return await work(database)
        finally:
            await database.close()

    try:
        return asyncio.run(run())
    except NufiError as exc:
        typer.echo(f"nufi: {exc.detail}", err=True)
        raise typer.Exit(code=1) from None


def _settings_or_exit(**overrides: object) -> Settings:
    try:
        return load_settings(**overrides)
    except NufiError as exc:
        typer.echo(f"nufi: {exc.detail}", err=True)
        raise typer.Exit(code=2) from None


def _serve(settings: Settings) -> None:
    # Imported here so `nufi version` and `--help` stay quick.
    from nufi.api import create_app

    _AnnouncingServer(_uvicorn_config(create_app(settings), settings)).run()


class _AnnouncingServer(uvicorn.Server):
    """Prints the URLs actually bound, which matters when port 0 let the OS choose."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            for url in _bound_urls(self):
                typer.echo(f"NuFi listening on {url}")


def _bound_urls(server: uvicorn.Server) -> list[str]:
    urls: list[str] = []
    for listener in server.servers:
        for sock in listener.sockets:
            address = sock.getsockname()
            host = address[0]
            if sock.family == socket.AF_INET6:
                host = f"[{host}]"
            urls.append(f"http://{host}:{address[1]}")
    return urls


def _serve_with_reload(settings: Settings) -> None:
    # The reloader imports the app in a child process, so the app is named, not passed.
    typer.echo(f"NuFi listening on http://{settings.host}:{settings.port} (reloading on changes)")
    uvicorn.run(
        "nufi.cli:reload_app_factory",
        factory=True,
        reload=True,
        # Watch the package, not whatever directory the command was started from.
        reload_dirs=[str(Path(__file__).parent)],
        **_server_options(settings),
    )


def reload_app_factory() -> FastAPI:
    """App factory for `nufi serve --reload` worker processes."""
    from nufi.api import create_app

    settings = load_settings()
    configure_logging(settings.log_format, settings.log_level)
    return create_app(settings)


def _uvicorn_config(application: FastAPI, settings: Settings) -> uvicorn.Config:
    return uvicorn.Config(application, **_server_options(settings))


def _server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for NuFi, with or without the reloader."""
    return {
        "host": settings.host,
        "port": settings.port,
        # Our own logging is configured already; uvicorn's loggers propagate into it.
        "log_config": None,
        # RequestContextMiddleware writes a structured access log with the request id.
        "access_log": False,
        "server_header": False,
        "timeout_graceful_shutdown": _GRACEFUL_SHUTDOWN_SECONDS,
    }
