"""`nufi labs`: Jupyter and VS Code labs on accelerators, in a project."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.deployments import parse_accelerator
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, ServerOption, TokenOption, emit, emit_one, field
from nufi.cli.projects import ProjectOption
from nufi.cli.say import say

app = typer.Typer(name="labs", help="cli.help.labs", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("name", "NAME"),
    field("kind", "KIND"),
    Column("ACCELERATOR", lambda row: f"{row['accelerator']['device_type']}:{row['accelerator']['count']}"),
    field("status", "STATUS"),
    field("reason", "REASON"),
    field("url", "URL"),
]
Name = Annotated[str, typer.Argument(help="cli.help.labs.name")]


def _path(project: str, name: str = "") -> str:
    return f"/api/v1/projects/{project}/labs" + (f"/{name}" if name else "")


@app.command("list", help="cli.help.labs.list")
@exits_on_failure
def list_(
    project: ProjectOption,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """The project's labs."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", _path(project))
    emit(body, output, body["items"], COLUMNS)


@app.command("get", help="cli.help.labs.get")
@exits_on_failure
def get(
    name: Name,
    project: ProjectOption,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """One lab."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", _path(project, name))
    emit_one(body, output, [*COLUMNS, field("image", "IMAGE"), field("storage_gib", "STORAGE GiB")])


@app.command("create", help="cli.help.labs.create")
@exits_on_failure
def create(
    name: Name,
    project: ProjectOption,
    accelerator: Annotated[str, typer.Option(help="cli.help.labs.accelerator")],
    kind: Annotated[str, typer.Option(help="cli.help.labs.kind")] = "jupyter",
    image: Annotated[str | None, typer.Option(help="cli.help.labs.image")] = None,
    storage_gib: Annotated[int | None, typer.Option(help="cli.help.labs.storage_gib")] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """Create a lab."""
    body: dict[str, Any] = {"name": name, "kind": kind, "accelerator": parse_accelerator(accelerator)}
    if image:
        body["image"] = image
    if storage_gib is not None:
        body["storage_gib"] = storage_gib
    with Api(server_of(server), token) as api:
        created = api.json("POST", _path(project), json=body)
    if output is Format.table:
        typer.echo(say("cli.created", what="lab", name=name))
    emit_one(created, output, COLUMNS)


def _act(action: str, done: str, name: str, project: str, server: str | None, token: str | None) -> None:
    with Api(server_of(server), token) as api:
        api.request("POST", f"{_path(project, name)}/{action}")
    typer.echo(say(done, name=name))


@app.command("stop", help="cli.help.labs.stop")
@exits_on_failure
def stop(name: Name, project: ProjectOption, server: ServerOption = None, token: TokenOption = None) -> None:
    """Stop a lab; its workspace is kept."""
    _act("stop", "cli.lab.stopped", name, project, server, token)


@app.command("start", help="cli.help.labs.start")
@exits_on_failure
def start(name: Name, project: ProjectOption, server: ServerOption = None, token: TokenOption = None) -> None:
    """Start a stopped lab."""
    _act("start", "cli.lab.started", name, project, server, token)


@app.command("delete", help="cli.help.labs.delete")
@exits_on_failure
def delete(
    name: Name, project: ProjectOption, server: ServerOption = None, token: TokenOption = None
) -> None:
    """Delete a lab and its workspace."""
    with Api(server_of(server), token) as api:
        api.request("DELETE", _path(project, name))
    typer.echo(say("cli.deleted", what="lab", name=name))


@app.command("open", help="cli.help.labs.open")
@exits_on_failure
def open_(name: Name, project: ProjectOption, server: ServerOption = None, token: TokenOption = None) -> None:
    """Print the lab's address (open it in a browser signed in to the dashboard)."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", _path(project, name))
    url = str(body.get("origin_url") or body["url"])
    typer.echo(url if "://" in url else api.server + url)
