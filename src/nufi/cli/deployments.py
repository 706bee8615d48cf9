"""`nufi deployments`: inference servers on accelerators, in a project."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from nufi.cli import exits, workloads
from nufi.cli.command import with_api
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, emit, field
from nufi.cli.projects import ProjectOption
from nufi.cli.say import say
from nufi.cli.typed_client import NufiClient, WorkloadsClient
from nufi.models.answers import Deployment

app = typer.Typer(name="deployments", help="cli.help.deployments", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("name", "cli.column.name"),
    Column("cli.column.accelerator", workloads.accelerator_cell),
    Column("cli.column.ready", lambda row: f"{row.ready_replicas}/{row.replicas}"),
    workloads.STATUS,
    field("reason", "cli.column.reason", wraps=True),
    field("image", "cli.column.image"),
]
# Where other workloads reach it: the Service inside the cluster (the API's `urls.cluster`).
DETAIL = [
    *COLUMNS,
    field("port", "cli.column.port"),
    Column("cli.column.cluster_address", lambda row: row.urls and row.urls.cluster),
]
KIND = workloads.Kind("deployments", "deployment", COLUMNS, DETAIL, lambda nufi: nufi.deployments)
Name = Annotated[str, typer.Argument(help="cli.help.deployments.name")]
READY = "Ready"
_POLL_SECONDS = 1.0

workloads.add_reads(app, KIND)


def parse_env(values: list[str]) -> list[dict[str, str]]:
    pairs = []
    for value in values:
        name, equals, text = value.partition("=")
        if not name or not equals:
            raise exits.CliFailure(exits.USAGE, [say("cli.usage.bad_env", value=value)])
        pairs.append({"name": name, "value": text})
    return pairs


@app.command("create", help="cli.help.deployments.create")
@with_api
def create(
    nufi: NufiClient,
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
    output: OutputOption = Format.table,
) -> None:
    """Create a deployment; with --wait, exit only once it is Ready (exit 1 if it is not in time)."""
    body: dict[str, Any] = {
        "name": name,
        "image": image,
        "accelerator": workloads.parse_accelerator(accelerator),
        "replicas": replicas,
    }
    if port is not None:
        body["port"] = port
    if env:
        body["env"] = parse_env(env)
    optional = {"command": command, "args": arg, "readiness_path": readiness_path}
    body.update({key: value for key, value in optional.items() if value})
    created = nufi.deployments.create(project, body)
    if wait > 0:
        created = _wait_ready(nufi.deployments, project, name, wait)
    workloads.show_created(KIND, created, output)
    if wait > 0 and created.status != READY:
        raise typer.Exit(exits.REFUSED)


def _wait_ready(
    deployments: WorkloadsClient[Deployment], project: str, name: str, seconds: float
) -> Deployment:
    deadline = time.monotonic() + seconds
    while True:
        current = deployments.get(project, name)
        if current.status == READY or time.monotonic() >= deadline:
            return current
        time.sleep(_POLL_SECONDS)


@app.command("scale", help="cli.help.deployments.scale")
@with_api
def scale(
    nufi: NufiClient,
    name: Name,
    project: ProjectOption,
    replicas: Annotated[int, typer.Option(help="cli.help.deployments.scale.replicas")],
    output: OutputOption = Format.table,
) -> None:
    """Change a deployment's number of replicas."""
    scaled = nufi.deployments.change(project, name, {"replicas": replicas})
    if output is Format.table:
        typer.echo(say("cli.scaled", name=name, replicas=replicas))
    else:
        emit(scaled, output, None, [])


workloads.add_delete(app, KIND)
