"""`nufi devices`: the device catalog, as the dashboard's Devices page shows and edits it."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from nufi.cli import exits, packs_commands
from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Format, OutputOption, ServerOption, TokenOption, emit, emit_one, field
from nufi.cli.say import say

app = typer.Typer(name="devices", help="cli.help.devices", cls=WordedGroup, no_args_is_help=True)
app.command("export", help="cli.help.devices.export")(packs_commands.export)
app.command("apply", help="cli.help.devices.apply")(packs_commands.apply)
app.command("diff", help="cli.help.devices.diff")(packs_commands.diff)

COLUMNS = [
    field("id", "ID"),
    field("name", "NAME"),
    field("vendor", "VENDOR"),
    field("kind", "KIND"),
    field("resource_key", "RESOURCE KEY"),
    field("enabled", "ENABLED"),
    field("revision", "REVISION"),
]
DeviceId = Annotated[str, typer.Argument(help="cli.help.option.device_type")]


@app.command("list", help="cli.help.devices.list")
@exits_on_failure
def list_(
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
    enabled: Annotated[
        bool | None, typer.Option("--enabled/--disabled", help="cli.help.devices.list.enabled")
    ] = None,
) -> None:
    """Every device type: official presets and custom types."""
    params = {} if enabled is None else {"enabled": str(enabled).lower()}
    with Api(server_of(server), token) as api:
        body = api.json("GET", "/api/v1/devices", params=params)
    emit(body, output, body["items"], COLUMNS)


@app.command("get", help="cli.help.devices.get")
@exits_on_failure
def get(
    device_id: DeviceId,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """One device type with its inventory per node."""
    with Api(server_of(server), token) as api:
        body = api.json("GET", f"/api/v1/devices/{device_id}")
    emit_one(body, output, [*COLUMNS, field("fetcher", "FETCHER"), field("inventory", "INVENTORY")])


@app.command("delete", help="cli.help.devices.delete")
@exits_on_failure
def delete(
    device_id: DeviceId,
    server: ServerOption = None,
    token: TokenOption = None,
    revision: Annotated[int | None, typer.Option(help="cli.help.devices.delete.revision")] = None,
) -> None:
    """Delete a custom device type (administrators)."""
    params = {} if revision is None else {"revision": revision}
    with Api(server_of(server), token) as api:
        api.request("DELETE", f"/api/v1/admin/devices/{device_id}", params=params)
    typer.echo(say("cli.deleted", what="device type", name=device_id))


@app.command("check", help="cli.help.devices.check")
@exits_on_failure
def check(
    device_id: DeviceId,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """Check a type against the world: its resource key on nodes, its metrics in Prometheus.
    Exit 1 when a check fails."""
    with Api(server_of(server), token) as api:
        spec = api.json("GET", f"/api/v1/devices/{device_id}")
        key = api.json(
            "POST",
            "/api/v1/admin/devices/check-resource-key",
            json={"resource_key": spec["resource_key"], "editing": device_id},
        )
        metrics = api.json(
            "POST",
            "/api/v1/admin/devices/check-metrics",
            json={"labels": spec["labels"], "metrics": spec["metrics"], "fetcher": spec["fetcher"]},
        )
    report = {"resource_key": key, "metrics": metrics}
    if output is not Format.table:
        emit(report, output, None, [])
    else:
        _print_check(spec["resource_key"], key, metrics)
    if not (key.get("valid") and key.get("found") and metrics.get("ok")):
        raise typer.Exit(exits.REFUSED)


def _print_check(resource_key: str, key: dict[str, Any], metrics: dict[str, Any]) -> None:
    def verdict(ok: object) -> str:
        return say("cli.check.ok" if ok else "cli.check.failed")

    typer.echo(
        say(
            "cli.check.resource_key", key=resource_key, verdict=verdict(key.get("valid") and key.get("found"))
        )
    )
    if key.get("message"):
        typer.echo(f"  {key['message']}")
    for metric, result in (metrics.get("results") or {}).items():
        typer.echo(say("cli.check.metric", metric=metric, verdict=verdict(result.get("ok"))))
        if result.get("error"):
            typer.echo(f"  {result['error']}")
