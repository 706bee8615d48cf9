"""`nufi projects`: the projects you belong to (all of them for administrators)."""

from __future__ import annotations

from typing import Annotated

import typer

from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, ServerOption, TokenOption, emit, emit_one, field

app = typer.Typer(name="projects", help="cli.help.projects", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("name", "NAME"),
    field("namespace", "NAMESPACE"),
    Column(
        "MEMBERS",
        lambda row: ", ".join(
            m.get("username", str(m)) if isinstance(m, dict) else str(m) for m in row.get("members") or []
        ),
    ),
]
ProjectOption = Annotated[
    str, typer.Option("--project", "-p", envvar="NUFI_PROJECT", help="cli.help.option.project")
]


@app.command("list", help="cli.help.projects.list")
@exits_on_failure
def list_(
    server: ServerOption = None, token: TokenOption = None, output: OutputOption = Format.table
) -> None:
    """The projects you may use."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", "/api/v1/projects")
    emit(body, output, body["items"], COLUMNS)


@app.command("get", help="cli.help.projects.get")
@exits_on_failure
def get(
    name: Annotated[str, typer.Argument(help="cli.help.projects.name")],
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """One project and its members."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", f"/api/v1/projects/{name}")
    emit_one(body, output, COLUMNS)
