"""`nufi deployments`: inference servers on accelerators, in a project."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from nufi.cli import exits
from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, ServerOption, TokenOption, emit, emit_one, field
from nufi.cli.projects import ProjectOption
from nufi.cli.say import say

app = typer.Typer(name="deployments", help="cli.help.deployments", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("name", "NAME"),
    Column("ACCELERATOR", lambda row: f"{row['accelerator']['device_type']}:{row['accelerator']['count']}"),
    Column("READY", lambda row: f"{row.get('ready_replicas', 0)}/{row.get('replicas', 0)}"),
    field("status", "STATUS"),
    field("reason", "REASON"),
    field("image", "IMAGE"),
]
DETAIL = [
    *COLUMNS,
    field("port", "PORT"),
    Column("URL", lambda row: (row.get("urls") or {}).get("api_proxy")),
]
Name = Annotated[str, typer.Argument(help="cli.help.deployments.name")]
READY = "Ready"
_POLL_SECONDS = 1.0


def parse_accelerator(value: str) -> dict[str, Any]:
    device_type, _, count = value.partition(":")
    if not device_type or not count.isdigit():
        raise exits.CliFailure(exits.USAGE, [say("cli.usage.bad_accelerator", value=value)])
    return {"device_type": device_type, "count": int(count)}


def parse_env(values: list[str]) -> list[dict[str, str]]:
    pairs = []
    for value in values:
        name, equals, text = value.partition("=")
        if not name or not equals:
            raise exits.CliFailure(exits.USAGE, [say("cli.usage.bad_env", value=value)])
        pairs.append({"name": name, "value": text})
    return pairs


@app.command("list", help="cli.help.deployments.list")
@exits_on_failure
def list_(
    project: ProjectOption,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """The project's deployments."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", f"/api/v1/projects/{project}/deployments")
    emit(body, output, body["items"], COLUMNS)


@app.command("get", help="cli.help.deployments.get")
@exits_on_failure
def get(
    name: Name,
    project: ProjectOption,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """One deployment: status, pods, addresses."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", f"/api/v1/projects/{project}/deployments/{name}")
    emit_one(body, output, DETAIL)


@app.command("create", help="cli.help.deployments.create")
@exits_on_failure
def create(
    name: Name,
    project: ProjectOption,
    image: Annotated[str, typer.Option(help="cli.help.deployments.image")],
    accelerator: Annotated[str, typer.Option(help="cli.help.deployments.accelerator")],
    replicas: Annotated[int, typer.Option(help="cli.help.deployments.replicas")] = 1,
    port: Annotated[int | None, typer.Option(help="cli.help.deployments.port")] = None,
    env: Annotated[list[str] | None, typer.Option(help="cli.help.deployments.env")] = None,
    command: Annotated[list[str] | None, typer.Option(help="cli.help.deployments.command")] = None,
    arg: Annotated[list[str] | None, typer.Option(help="cli.help.deployments.arg")] = None,
    readiness_path: Annotated[str | None, typer.Option(help="cli.help.deployments.readiness_path")] = None,
    wait: Annotated[float, typer.Option(help="cli.help.deployments.wait")] = 0.0,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """Create a deployment; with --wait, exit only once it is Ready (exit 1 if it is not in time)."""
    body: dict[str, Any] = {
        "name": name,
        "image": image,
        "accelerator": parse_accelerator(accelerator),
        "replicas": replicas,
    }
    if port is not None:
        body["port"] = port
    if env:
        body["env"] = parse_env(env)
    optional = {"command": command, "args": arg, "readiness_path": readiness_path}
    body.update({key: value for key, value in optional.items() if value})
    with Api(server_of(server), token) as api:
        created = api.json("POST", f"/api/v1/projects/{project}/deployments", json=body)
        if wait > 0:
            created = _wait_ready(api, f"/api/v1/projects/{project}/deployments/{name}", wait)
    if output is Format.table:
        typer.echo(say("cli.created", what="deployment", name=name))
    emit_one(created, output, DETAIL)
    if wait > 0 and created.get("status") != READY:
        raise typer.Exit(exits.REFUSED)


def _wait_ready(api: Api, path: str, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        current: dict[str, Any] = api.json("GET", path)
        if current.get("status") == READY or time.monotonic() >= deadline:
            return current
        time.sleep(_POLL_SECONDS)


@app.command("scale", help="cli.help.deployments.scale")
@exits_on_failure
def scale(
    name: Name,
    project: ProjectOption,
    replicas: Annotated[int, typer.Option(help="cli.help.deployments.scale.replicas")],
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """Change a deployment's number of replicas."""
    with Api(server_of(server), token) as api:
        body = api.json(
            "PATCH", f"/api/v1/projects/{project}/deployments/{name}", json={"replicas": replicas}
        )
    if output is Format.table:
        typer.echo(say("cli.scaled", name=name, replicas=replicas))
    else:
        emit(body, output, None, [])


@app.command("delete", help="cli.help.deployments.delete")
@exits_on_failure
def delete(
    name: Name, project: ProjectOption, server: ServerOption = None, token: TokenOption = None
) -> None:
    """Delete a deployment and its pods."""
    with Api(server_of(server), token) as api:
        api.request("DELETE", f"/api/v1/projects/{project}/deployments/{name}")
    typer.echo(say("cli.deleted", what="deployment", name=name))
