"""`nufi thermal status`: what the thermal controller sees and does, node by node."""

from __future__ import annotations

from typing import Any

import typer

from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Column, Format, OutputOption, ServerOption, TokenOption, emit, field
from nufi.cli.say import say

app = typer.Typer(name="thermal", help="cli.help.thermal", cls=WordedGroup, no_args_is_help=True)

COLUMNS = [
    field("device_type", "TYPE"),
    field("node", "NODE"),
    field("state", "STATE"),
    field("temperature_celsius", "TEMP °C"),
    field("trip_celsius", "TRIP °C"),
    field("hot", "HOT"),
    Column("DEPLOYMENTS", lambda row: ", ".join(row.get("deployments") or []) or None),
]


def node_rows(status: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for kind in status.get("types") or []:
        trip = (kind.get("policy") or {}).get("trip_celsius")
        for node in kind.get("nodes") or []:
            rows.append({"device_type": kind["device_type"], "trip_celsius": trip, **node})
    return rows


@app.command("status", help="cli.help.thermal.status")
@exits_on_failure
def status(
    server: ServerOption = None, token: TokenOption = None, output: OutputOption = Format.table
) -> None:
    """The controller's leader, and per type and node the temperature, state and what is cut."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", "/api/v1/thermal/status")
    if output is Format.table:
        typer.echo(
            say("cli.thermal.header", leader=body.get("holder") or "-", updated=body.get("updated_at") or "-")
        )
        for problem in body.get("problems") or []:
            typer.echo(f"! {problem}", err=True)
    emit(body, output, node_rows(body), COLUMNS)
