"""`nufi labs`: Jupyter and VS Code labs on accelerators, in a project."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from nufi.cli import workloads
from nufi.cli.command import with_api
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, field
from nufi.cli.projects import ProjectOption
from nufi.cli.say import local_time, say
from nufi.cli.typed_client import NufiClient
from nufi.models.answers import Lab

app = typer.Typer(name="labs", help="cli.help.labs", cls=WordedGroup, no_args_is_help=True)


def last_active(lab: Lab) -> str:
    """When the lab's server last saw its user, on this machine's clock, or what NuFi knows instead."""
    activity = lab.activity
    if activity is None:
        return "—"
    if activity.state == "unreachable":
        return say("cli.lab.active.unknown")
    if activity.state == "busy":
        return say("cli.lab.active.busy")
    return local_time(activity.last_active) or say("cli.lab.active.none")


COLUMNS = [
    field("name", "cli.column.name"),
    field("kind", "cli.column.kind"),
    Column("cli.column.accelerator", workloads.accelerator_cell),
    workloads.STATUS,
    Column("cli.column.last_active", last_active),
    field("reason", "cli.column.reason", wraps=True),
    field("url", "cli.column.url"),
]
KIND = workloads.Kind(
    "labs",
    "lab",
    COLUMNS,
    [*COLUMNS, field("image", "cli.column.image"), field("storage_gib", "cli.column.storage_gib")],
    lambda nufi: nufi.labs,
)
Name = Annotated[str, typer.Argument(help="cli.help.labs.name")]


workloads.add_reads(app, KIND)


@app.command("create", help="cli.help.labs.create")
@with_api
def create(
    nufi: NufiClient,
    name: Name,
    project: ProjectOption,
    accelerator: Annotated[str, typer.Option(help="cli.help.labs.accelerator")],
    kind: Annotated[str, typer.Option(help="cli.help.labs.kind")] = "jupyter",
    image: Annotated[str | None, typer.Option(help="cli.help.labs.image")] = None,
    storage_gib: Annotated[int | None, typer.Option(help="cli.help.labs.storage_gib")] = None,
    output: OutputOption = Format.table,
) -> None:
    """Create a lab."""
    ask = workloads.parse_accelerator(accelerator)
    body: dict[str, Any] = {"name": name, "kind": kind, "accelerator": ask}
    if image:
        body["image"] = image
    if storage_gib is not None:
        body["storage_gib"] = storage_gib
    workloads.show_created(KIND, nufi.labs.create(project, body), output)


@app.command("stop", help="cli.help.labs.stop")
@with_api
def stop(nufi: NufiClient, name: Name, project: ProjectOption) -> None:
    """Stop a lab; its workspace is kept."""
    nufi.labs.act(project, name, "stop")
    typer.echo(say("cli.lab.stopped", name=name))


@app.command("start", help="cli.help.labs.start")
@with_api
def start(nufi: NufiClient, name: Name, project: ProjectOption) -> None:
    """Start a stopped lab."""
    nufi.labs.act(project, name, "start")
    typer.echo(say("cli.lab.started", name=name))


workloads.add_delete(app, KIND)


@app.command("open", help="cli.help.labs.open")
@with_api
def open_(nufi: NufiClient, name: Name, project: ProjectOption) -> None:
    """Print the lab's address (open it in a browser signed in to the dashboard)."""
    lab = nufi.labs.get(project, name)
    url = lab.origin_url or lab.url
    typer.echo(url if "://" in url else nufi.server + url)
