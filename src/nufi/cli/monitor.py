"""`nufi monitor TYPE`: a type's nodes and devices, live from the SSE stream or once for scripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

import typer
from rich.table import Table

from nufi.cli.client import parsed
from nufi.cli.command import with_api
from nufi.cli.output import (
    Column,
    Format,
    OutputOption,
    as_yaml,
    console,
    emit,
    field,
    in_words,
    show,
    table,
)
from nufi.cli.say import local_time, say
from nufi.cli.typed_client import NufiClient
from nufi.models.answers import DeviceSample, Snapshot, View


class StreamError(View):
    detail: str = ""


_GIB = 1024**3


@dataclass(frozen=True)
class DeviceRow:
    """One device beside its node (a node with no device reading is one row of its own)."""

    node: str
    sample: DeviceSample

    def __getattr__(self, name: str) -> object:
        return getattr(self.sample, name)


def _memory(row: DeviceRow) -> str | None:
    used, total = row.sample.memory_used_bytes, row.sample.memory_total_bytes
    if used is None:
        return None
    shown = f"{used / _GIB:.1f}"
    return f"{shown}/{total / _GIB:.1f} GiB" if total else f"{shown} GiB"


_HEALTH_WORDS = ("ok", "unhealthy", "unknown")


def health_column(mapped: bool) -> Column:
    """A device's health in the operator's words; for a type that maps no health expression the
    server can only say `unknown`, so the column says that health is not mapped instead."""

    def worded(row: DeviceRow) -> object:
        value = row.sample.health
        if row.sample.device is None:
            return None
        if not mapped:
            return say("cli.health.not_mapped")
        return in_words("cli.health", value, _HEALTH_WORDS)

    return Column("cli.column.health", worded)


def device_columns(health_mapped: bool) -> list[Column]:
    return [
        field("node", "cli.column.node"),
        field("device", "cli.column.device"),
        field("utilization_percent", "cli.column.utilization"),
        Column("cli.column.memory", _memory),
        field("temperature_celsius", "cli.column.temperature"),
        field("power_watts", "cli.column.power"),
        health_column(health_mapped),
        Column("cli.column.pod", lambda row: f"{row.namespace}/{row.pod}" if row.pod else None),
    ]


def device_rows(snapshot: Snapshot) -> list[DeviceRow]:
    return [
        DeviceRow(node.node, device) for node in snapshot.nodes for device in node.devices or [DeviceSample()]
    ]


def snapshot_table(snapshot: Snapshot, health_mapped: bool) -> Table:
    title = say(
        "cli.monitor.title",
        device_type=snapshot.device_type,
        time=local_time(snapshot.time),
        nodes=snapshot.summary.nodes,
        devices=snapshot.summary.devices,
    )
    return table(device_rows(snapshot), device_columns(health_mapped), title=title)


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) pairs from Server-Sent Event lines; comments (heartbeats) are skipped."""
    event, data = "message", list[str]()
    for line in lines:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", list[str]()
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)


@with_api
def monitor(
    nufi: NufiClient,
    device_type: Annotated[str, typer.Argument(help="cli.help.option.device_type")],
    once: Annotated[bool, typer.Option("--once", help="cli.help.monitor.once")] = False,
    node: Annotated[str | None, typer.Option(help="cli.help.monitor.node")] = None,
    sort: Annotated[str | None, typer.Option(help="cli.help.monitor.sort")] = None,
    limit: Annotated[int | None, typer.Option(help="cli.help.monitor.limit")] = None,
    output: OutputOption = Format.table,
) -> None:
    """Watch a device type's devices live (Ctrl-C to stop); json/yaml print one document per snapshot."""
    params = {k: v for k, v in {"node": node, "sort": sort, "limit": limit}.items() if v is not None}
    # Only a person's table words health, and it asks the type whether it maps any.
    mapped = output is not Format.table or nufi.devices.get(device_type).health_mapped
    if once:
        snapshot = nufi.monitoring.snapshot(device_type, params)
        if output is Format.table:
            show(snapshot_table(snapshot, mapped))
        else:
            emit(snapshot, output, None, [])
        return
    with nufi.monitoring.stream(device_type, params) as response:
        _follow(Watch(device_type, output, nufi.server, mapped), sse_events(response.iter_lines()))


@dataclass(frozen=True)
class Watch:
    """What one `nufi monitor` follows, and how it shows it."""

    device_type: str
    output: Format
    server: str
    health_mapped: bool


def _follow(watch: Watch, events: Iterator[tuple[str, str]]) -> None:
    try:
        for event, data in events:
            body = json.loads(data)
            if event == "end":
                break
            if watch.output is not Format.table:
                # One JSON document per line, or YAML documents separated by `---`.
                json_line = json.dumps(body, ensure_ascii=False)
                typer.echo(json_line if watch.output is Format.json else "---\n" + as_yaml(body))
            elif event == "snapshot":
                _redraw(snapshot_table(parsed(Snapshot, body, watch.server), watch.health_mapped))
            elif event == "error":
                problem = parsed(StreamError, body, watch.server)
                typer.echo(say("cli.monitor.error", detail=problem.detail), err=True)
    except KeyboardInterrupt:
        return
    typer.echo(say("cli.monitor.ended", device_type=watch.device_type), err=True)


def _redraw(shown: Table) -> None:
    """A terminal shows the newest snapshot alone, from the top of the screen, as `watch` does (a
    table wider than the terminal wraps there rather than losing its ids); a pipe or a file gets
    each snapshot as a block of its own, written at once."""
    out = console()
    if out.is_terminal:
        out.clear()
    show(shown)
    if not out.is_terminal:
        typer.echo("")
    sys.stdout.flush()
