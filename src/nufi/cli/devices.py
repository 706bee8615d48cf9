"""`nufi devices`: the device catalog, as the dashboard's Devices page shows and edits it."""

from __future__ import annotations

from typing import Annotated

import typer

from nufi.cli import exits, packs_commands
from nufi.cli.command import with_api
from nufi.cli.confirm import YesOption, confirm_delete
from nufi.cli.help_pages import WordedGroup
from nufi.cli.output import Format, OutputOption, emit, emit_one, field, show, table
from nufi.cli.say import say
from nufi.cli.typed_client import NufiClient
from nufi.models.answers import DeviceTypeRow, MetricsVerdict, ResourceKeyVerdict

app = typer.Typer(name="devices", help="cli.help.devices", cls=WordedGroup, no_args_is_help=True)
app.command("export", help="cli.help.devices.export")(packs_commands.export)
app.command("apply", help="cli.help.devices.apply")(packs_commands.apply)
app.command("diff", help="cli.help.devices.diff")(packs_commands.diff)

COLUMNS = [
    field("id", "cli.column.id"),
    field("name", "cli.column.name"),
    field("vendor", "cli.column.vendor"),
    field("kind", "cli.column.kind"),
    field("resource_key", "cli.column.resource_key"),
    field("enabled", "cli.column.enabled"),
    field("revision", "cli.column.revision"),
]
PER_NODE = [
    field("node", "cli.column.node"),
    field("capacity", "cli.column.capacity"),
    field("allocatable", "cli.column.allocatable"),
    field("allocated", "cli.column.allocated"),
]
DeviceId = Annotated[str, typer.Argument(help="cli.help.option.device_type")]


@app.command("list", help="cli.help.devices.list")
@with_api
def list_(
    nufi: NufiClient,
    output: OutputOption = Format.table,
    enabled: Annotated[
        bool | None, typer.Option("--enabled/--disabled", help="cli.help.devices.list.enabled")
    ] = None,
) -> None:
    """Every device type: official presets and custom types."""
    listing = nufi.devices.list(enabled)
    emit(listing, output, listing.items, COLUMNS)


@app.command("get", help="cli.help.devices.get")
@with_api
def get(nufi: NufiClient, device_id: DeviceId, output: OutputOption = Format.table) -> None:
    """One device type with its inventory per node."""
    device = nufi.devices.get(device_id)
    emit_one(device, output, [*COLUMNS, field("fetcher", "cli.column.fetcher")])
    if output is Format.table:
        _print_inventory(device)


def _print_inventory(device: DeviceTypeRow) -> None:
    """The inventory in words, then a row per node."""
    typer.echo("")
    inventory = device.inventory
    if inventory is None:
        typer.echo(say("cli.devices.inventory_unknown", error=device.inventory_error or "-"))
        return
    counts = inventory.model_dump(include={"nodes", "capacity", "allocatable", "allocated"})
    typer.echo(say("cli.devices.inventory", **counts))
    if inventory.per_node:
        show(table(inventory.per_node, PER_NODE))


@app.command("delete", help="cli.help.devices.delete")
@with_api
def delete(
    nufi: NufiClient,
    device_id: DeviceId,
    revision: Annotated[int | None, typer.Option(help="cli.help.devices.delete.revision")] = None,
    yes: YesOption = False,
) -> None:
    """Delete a custom device type (administrators)."""
    question = say("cli.devices.delete.question", id=device_id)
    confirm_delete(question, say("cli.devices.delete.consequence"), yes=yes)
    nufi.devices.delete(device_id, revision)
    typer.echo(say("cli.deleted", what=say("cli.what.device_type"), name=device_id))


@app.command("check", help="cli.help.devices.check")
@with_api
def check(nufi: NufiClient, device_id: DeviceId, output: OutputOption = Format.table) -> None:
    """Check a type against the world: its resource key on nodes, its metrics in Prometheus.
    Exit 1 when a check fails."""
    device = nufi.devices.get(device_id)
    key = nufi.devices.check_resource_key(device)
    metrics = nufi.devices.check_metrics(device)
    if output is not Format.table:
        emit({"resource_key": key, "metrics": metrics}, output, None, [])
    else:
        _print_check(device.resource_key, key, metrics)
    if not (key.valid and key.found and metrics.ok):
        raise typer.Exit(exits.REFUSED)


def _print_check(resource_key: str, key: ResourceKeyVerdict, metrics: MetricsVerdict) -> None:
    def verdict(ok: bool) -> str:
        return say("cli.check.ok" if ok else "cli.check.failed")

    typer.echo(say("cli.check.resource_key", key=resource_key, verdict=verdict(key.valid and key.found)))
    if key.message:
        typer.echo(f"  {key.message}")
    for metric, result in metrics.results.items():
        typer.echo(say("cli.check.metric", metric=metric, verdict=verdict(result.ok)))
        if result.error:
            typer.echo(f"  {result.error}")
