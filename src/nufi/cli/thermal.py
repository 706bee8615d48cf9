"""`nufi thermal status`: what the thermal controller sees and does, node by node."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from nufi.cli.command import with_api
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, emit, field, in_words
from nufi.cli.say import local_time, say
from nufi.cli.typed_client import NufiClient
from nufi.models.answers import ThermalNode, ThermalStatus

# The states the controller reports, each worded by the catalog (`cli.thermal.state.*`).
_STATES = ("normal", "hot", "stale", "unhealthy", "tripped")
app = typer.Typer(name="thermal", help="cli.help.thermal", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("device_type", "cli.column.device_type"),
    field("node", "cli.column.node"),
    Column("cli.column.state", lambda row: in_words("cli.thermal.state", row.state, _STATES)),
    field("temperature_celsius", "cli.column.temperature"),
    field("trip_celsius", "cli.column.trip"),
    field("hot", "cli.column.hot"),
    Column("cli.column.deployments", lambda row: ", ".join(row.deployments) or None, wraps=True),
]


@dataclass(frozen=True)
class NodeRow:
    """One node of one type: the node's status beside its type and trip point."""

    device_type: str
    trip_celsius: float | None
    status: ThermalNode

    def __getattr__(self, name: str) -> object:
        return getattr(self.status, name)


def node_rows(status: ThermalStatus) -> list[NodeRow]:
    return [
        NodeRow(kind.device_type, kind.policy.trip_celsius if kind.policy else None, node)
        for kind in status.types
        for node in kind.nodes
    ]


@app.command("status", help="cli.help.thermal.status")
@with_api
def status(nufi: NufiClient, output: OutputOption = Format.table) -> None:
    """The controller's leader, and per type and node the temperature, state and what is cut."""
    answer = nufi.thermal.status()
    if output is Format.table:
        typer.echo(
            say(
                "cli.thermal.header",
                leader=answer.holder or "-",
                updated=local_time(answer.updated_at) or "-",
            )
        )
        for problem in answer.problems:
            typer.echo(f"! {problem}", err=True)
    emit(answer, output, node_rows(answer), COLUMNS)
