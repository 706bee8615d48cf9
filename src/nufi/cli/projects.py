"""`nufi projects`: the projects you belong to (all of them for administrators)."""

from __future__ import annotations

from typing import Annotated

import typer

from nufi.cli.command import with_api
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, emit, emit_one, field
from nufi.cli.typed_client import NufiClient

app = typer.Typer(name="projects", help="cli.help.projects", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("name", "cli.column.name"),
    field("namespace", "cli.column.namespace"),
    Column("cli.column.members", lambda row: ", ".join(row.members), wraps=True),
]
ProjectOption = Annotated[
    str, typer.Option("--project", "-p", envvar="NUFI_PROJECT", help="cli.help.option.project")
]


@app.command("list", help="cli.help.projects.list")
@with_api
def list_(nufi: NufiClient, output: OutputOption = Format.table) -> None:
    """The projects you may use."""
    listing = nufi.projects.list()
    emit(listing, output, listing.items, COLUMNS)


@app.command("get", help="cli.help.projects.get")
@with_api
def get(
    nufi: NufiClient,
    name: Annotated[str, typer.Argument(help="cli.help.projects.name")],
    output: OutputOption = Format.table,
) -> None:
    """One project and its members."""
    emit_one(nufi.projects.get(name), output, COLUMNS)
