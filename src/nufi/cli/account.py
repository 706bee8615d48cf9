"""`nufi login`, `nufi logout`, `nufi whoami`."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.login import sign_in
from nufi.cli.output import Format, OutputOption, ServerOption, TokenOption, emit
from nufi.cli.say import say
from nufi.cli.tokens import TokenCache

# How long `nufi login` waits for the browser part.
LOGIN_TIMEOUT_SECONDS = 300.0


@exits_on_failure
def login(
    server: ServerOption = None,
    browser: Annotated[bool, typer.Option("--browser/--no-browser", help="cli.help.login.browser")] = True,
    timeout: Annotated[float, typer.Option(help="cli.help.login.timeout")] = LOGIN_TIMEOUT_SECONDS,
) -> None:
    """Sign in with your browser (authorization code + PKCE); the tokens are kept for this server."""
    cache = TokenCache()
    address = server_of(server, cache)
    stored = sign_in(address, open_browser=browser, timeout=timeout)
    cache.save(stored)
    with Api(address, cache=cache) as api:
        me = api.json("GET", "/api/v1/me")
    cache.save(replace(stored, username=me["username"]))
    cache.remember_current(address)
    typer.echo(say("cli.login.done", server=address, username=me["username"]))


@exits_on_failure
def logout(server: ServerOption = None) -> None:
    """Forget the tokens kept for this server."""
    cache = TokenCache()
    address = server_of(server, cache)
    deleted = cache.delete(address)
    typer.echo(say("cli.logout.done" if deleted else "cli.logout.none", server=address))


@exits_on_failure
def whoami(
    server: ServerOption = None, token: TokenOption = None, output: OutputOption = Format.table
) -> None:
    """Who NuFi sees: your username, roles and whether you are an administrator."""
    address = server_of(server)
    with Api(address, token) as api:
        me = api.json("GET", "/api/v1/me")
    if output is not Format.table:
        emit(me, output, None, [])
        return
    admin = say("cli.whoami.admin" if me.get("is_admin") else "cli.whoami.not_admin")
    typer.echo(say("cli.whoami.line", username=me["username"], server=address, admin=admin))
