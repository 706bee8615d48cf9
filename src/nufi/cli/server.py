"""`nufi serve`, `nufi version` and `nufi db`: the commands that run the server on this machine."""

from __future__ import annotations

import asyncio
import gc
import os
import platform
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import uvicorn
from fastapi import FastAPI

from nufi import __version__
from nufi.cli.help_pages import WordedGroup
from nufi.cli.say import say
from nufi.config import Settings, load_settings
from nufi.errors import NufiError
from nufi.logging import configure_logging

if TYPE_CHECKING:
    from nufi.db import Database

app = typer.Typer(
    name="nufi",
    help="cli.help.app",
    cls=WordedGroup,
    no_args_is_help=True,
    add_completion=True,
)

# Seconds to let in-flight requests finish after SIGTERM before connections are dropped.
_GRACEFUL_SHUTDOWN_SECONDS = 10


@app.command(help="cli.help.serve")
def serve(
    host: Annotated[str | None, typer.Option(help="cli.help.serve.host")] = None,
    port: Annotated[int | None, typer.Option(help="cli.help.serve.port")] = None,
    reload: Annotated[bool, typer.Option(help="cli.help.serve.reload")] = False,
    api_only: Annotated[bool, typer.Option("--api-only", help="cli.help.serve.api_only")] = False,
    ui_only: Annotated[bool, typer.Option("--ui-only", help="cli.help.serve.ui_only")] = False,
) -> None:
    """Run the NuFi server until interrupted (Ctrl-C or SIGTERM): the REST API and the dashboard."""
    if api_only and ui_only:
        typer.echo(say("cli.serve.faces_exclusive"), err=True)
        raise typer.Exit(2)
    overrides: dict[str, object] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    settings = _settings_or_exit(**overrides)
    configure_logging(settings.log_format, settings.log_level)
    faces = _Faces(api=not ui_only, dashboard=not api_only)
    if reload:
        _serve_with_reload(settings, faces)
    else:
        _serve(settings, faces)


@app.command(help="cli.help.version")
def version() -> None:
    """Print the NuFi version."""
    typer.echo(f"nufi {__version__} (Python {platform.python_version()})")


db_app = typer.Typer(
    name="db",
    help="cli.help.db",
    cls=WordedGroup,
    no_args_is_help=True,
)
app.add_typer(db_app)


@db_app.command("upgrade", help="cli.help.db.upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Option(help="cli.help.db.upgrade.revision")] = "head",
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


@db_app.command("current", help="cli.help.db.current")
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


@dataclass(frozen=True)
class _Faces:
    api: bool = True
    dashboard: bool = True

    def as_env(self) -> dict[str, str]:
        return {_FACES_ENV: f"{int(self.api)}{int(self.dashboard)}"}

    @classmethod
    def from_env(cls) -> _Faces:
        value = os.environ.get(_FACES_ENV, "11")
        return cls(api=value[:1] != "0", dashboard=value[1:2] != "0")


# How `serve --reload` tells its worker processes which faces to serve.
_FACES_ENV = "NUFI_SERVE_FACES"


def build_server(settings: Settings, faces: _Faces) -> FastAPI:
    """The app `nufi serve` runs: the API, and the dashboard mounted beside it."""
    # Imported here so `nufi version` and `--help` stay quick.
    from nufi.api import create_app

    application = create_app(settings, api=faces.api)
    if faces.dashboard:
        from nufi.api.edge.unknown_paths import install_unknown_api_paths
        from nufi.ui.app import mount_dashboard

        # The dashboard's mount at `/` would answer every unknown `/api/...` path with a page.
        install_unknown_api_paths(application)
        mount_dashboard(application)
    return application


def _serve(settings: Settings, faces: _Faces) -> None:
    _AnnouncingServer(_uvicorn_config(build_server(settings, faces), settings)).run()


class _AnnouncingServer(uvicorn.Server):
    """Prints the URLs actually bound, which matters when port 0 let the OS choose; and once started,
    moves what start-up made (modules, the app, its services) out of the garbage collector's sight."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            for url in _bound_urls(self):
                typer.echo(f"NuFi listening on {url}")
            # Those objects live as long as the process; a full collection would walk all of them
            # again and again, stalling every request in flight while it does (CPython's gc.freeze).
            gc.freeze()


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


def _serve_with_reload(settings: Settings, faces: _Faces) -> None:
    # The reloader imports the app in a child process, so the app is named, not passed.
    os.environ.update(faces.as_env())
    typer.echo(f"NuFi listening on http://{settings.host}:{settings.port} (reloading on changes)")
    uvicorn.run(
        "nufi.cli:reload_app_factory",
        factory=True,
        reload=True,
        # Watch the package, not whatever directory the command was started from.
        reload_dirs=[str(Path(__file__).parent.parent)],
        **_server_options(settings),
    )


def reload_app_factory() -> FastAPI:
    """App factory for `nufi serve --reload` worker processes."""
    settings = load_settings()
    configure_logging(settings.log_format, settings.log_level)
    return build_server(settings, _Faces.from_env())


def _uvicorn_config(application: FastAPI, settings: Settings) -> uvicorn.Config:
    return uvicorn.Config(application, **_server_options(settings))


def _server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for NuFi, with or without the reloader."""
    from nufi.api.edge.connection_deadlines import RequestDeadlines, deadline_protocol

    return {
        "host": settings.host,
        "port": settings.port,
        # Our own logging is configured already; uvicorn's loggers propagate into it.
        "log_config": None,
        # RequestContextMiddleware writes a structured access log with the request id.
        "access_log": False,
        "server_header": False,
        "timeout_graceful_shutdown": _GRACEFUL_SHUTDOWN_SECONDS,
        "timeout_keep_alive": settings.http_keep_alive_timeout_seconds,
        "http": deadline_protocol(
            RequestDeadlines(
                header_seconds=settings.http_header_timeout_seconds,
                body_seconds=settings.http_body_timeout_seconds,
                body_min_bytes_per_second=settings.http_body_min_bytes_per_second,
            )
        ),
    }
