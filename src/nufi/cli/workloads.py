"""What `nufi deployments` and `nufi labs` share: both are workloads in a project, listed, shown and
deleted by the same command parts, each kind with its own columns and words."""

# No `from __future__ import annotations`: typer reads these commands' signatures, which name the
# kind's own help text, when they are made.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from nufi.cli import exits
from nufi.cli.command import with_api
from nufi.cli.confirm import YesOption, confirm_delete
from nufi.cli.output import Column, Format, OutputOption, emit, emit_one, in_words
from nufi.cli.projects import ProjectOption
from nufi.cli.say import say
from nufi.cli.typed_client import NufiClient, WorkloadsClient
from nufi.models.answers import Workload


def accelerator_cell(workload: Workload) -> str:
    return f"{workload.accelerator.device_type}:{workload.accelerator.count}"


# The statuses the server words a workload by, as Kubernetes spells them.
STATUSES = ("Ready", "Starting", "Pending", "Degraded", "Error", "ScaledDown", "Stopped")
STATUS = Column(
    "cli.column.status", lambda workload: in_words("cli.workload.status", workload.status, STATUSES)
)


@dataclass(frozen=True)
class Kind:
    """One kind of workload as the command line shows it."""

    # The API's path segment and the group's name: `deployments`, `labs`.
    segment: str
    # The word in "Created deployment x.": `cli.what.<what>` of the catalog.
    what: str
    columns: list[Column]
    detail: list[Column]
    client: Callable[[NufiClient], WorkloadsClient[Any]]

    def help(self, topic: str) -> str:
        return f"cli.help.{self.segment}.{topic}"

    def word(self) -> str:
        return say(f"cli.what.{self.what}")


def parse_accelerator(value: str) -> dict[str, object]:
    device_type, _, count = value.partition(":")
    if not device_type or not count.isdigit():
        raise exits.CliFailure(exits.USAGE, [say("cli.usage.bad_accelerator", value=value)])
    return {"device_type": device_type, "count": int(count)}


def show_created(kind: Kind, created: Workload, output: Format) -> None:
    if output is Format.table:
        typer.echo(say("cli.created", what=kind.word(), name=created.name))
    emit_one(created, output, kind.detail)


def add_reads(app: typer.Typer, kind: Kind) -> None:
    """`list` and `get`."""

    @app.command("list", help=kind.help("list"))
    @with_api
    def list_(nufi: NufiClient, project: ProjectOption, output: OutputOption = Format.table) -> None:
        listing = kind.client(nufi).list(project)
        emit(listing, output, listing.items, kind.columns)

    @app.command("get", help=kind.help("get"))
    @with_api
    def get(
        nufi: NufiClient,
        name: Annotated[str, typer.Argument(help=kind.help("name"))],
        project: ProjectOption,
        output: OutputOption = Format.table,
    ) -> None:
        emit_one(kind.client(nufi).get(project, name), output, kind.detail)


def add_delete(app: typer.Typer, kind: Kind) -> None:
    @app.command("delete", help=kind.help("delete"))
    @with_api
    def delete(
        nufi: NufiClient,
        name: Annotated[str, typer.Argument(help=kind.help("name"))],
        project: ProjectOption,
        yes: YesOption = False,
    ) -> None:
        question = say("cli.delete.question", what=kind.word(), name=name, project=project)
        confirm_delete(question, say(f"cli.{kind.segment}.delete.consequence", project=project), yes=yes)
        kind.client(nufi).delete(project, name)
        typer.echo(say("cli.deleted", what=kind.word(), name=name))
