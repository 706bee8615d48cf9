"""`nufi login`, `nufi logout`, `nufi whoami`."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from nufi.cli import exits
from nufi.cli.client import INSECURE_HTTP_ENV, Api, exits_on_failure, http_client, server_of
from nufi.cli.command import with_api
from nufi.cli.login import revoke, sign_in
from nufi.cli.output import Format, OutputOption, ServerOption, emit
from nufi.cli.say import say
from nufi.cli.tokens import TokenCache
from nufi.cli.typed_client import NufiClient

# How long `nufi login` waits for the browser part.
LOGIN_TIMEOUT_SECONDS = 300.0


@exits_on_failure
def login(
    server: ServerOption = None,
    browser: Annotated[bool, typer.Option("--browser/--no-browser", help="cli.help.login.browser")] = True,
    timeout: Annotated[float, typer.Option(help="cli.help.login.timeout")] = LOGIN_TIMEOUT_SECONDS,
    allow_insecure_http: Annotated[
        bool,
        typer.Option("--allow-insecure-http", envvar=INSECURE_HTTP_ENV, help="cli.help.login.insecure_http"),
    ] = False,
) -> None:
    """Sign in with your browser (authorization code + PKCE); the tokens are kept for this server."""
    cache = TokenCache()
    address = server_of(server, cache, allow_insecure_http=allow_insecure_http)
    stored = sign_in(address, open_browser=browser, timeout=timeout)
    cache.save(stored)
    with Api(address, cache=cache) as api:
        me = NufiClient(api).me()
    cache.save(replace(stored, username=me.username))
    cache.remember_current(address)
    typer.echo(say("cli.login.done", server=address, username=me.username))


@exits_on_failure
def logout(server: ServerOption = None) -> None:
    """Sign out: revoke the sign-in at the issuer and forget the tokens kept for this server."""
    cache = TokenCache()
    address = server_of(server, cache)
    stored = cache.load(address)
    problem = None
    if stored is not None:
        with http_client() as http:
            problem = revoke(http, stored)
    # The local tokens go whatever the issuer said: this machine keeps no sign-in either way.
    deleted = cache.delete(address)
    typer.echo(say("cli.logout.done" if deleted else "cli.logout.none", server=address))
    if stored is not None and problem is not None:
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.logout.not_revoked", issuer=stored.issuer, error=problem)]
        )


@with_api
def whoami(nufi: NufiClient, output: OutputOption = Format.table) -> None:
    """Who NuFi sees: your username, roles and whether you are an administrator."""
    me = nufi.me()
    if output is not Format.table:
        emit(me, output, None, [])
        return
    admin = say("cli.whoami.admin" if me.is_admin else "cli.whoami.not_admin")
    typer.echo(say("cli.whoami.line", username=me.username, server=nufi.server, admin=admin))
