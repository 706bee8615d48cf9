"""`nufi monitor TYPE`: a type's nodes and devices, live from the SSE stream or once for scripts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

import typer
from rich.live import Live
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
    table,
)
from nufi.cli.say import say
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


DEVICE_COLUMNS = [
    field("node", "NODE"),
    field("device", "DEVICE"),
    field("utilization_percent", "UTIL %"),
    Column("MEMORY", _memory),
    field("temperature_celsius", "TEMP °C"),
    field("power_watts", "POWER W"),
    field("health", "HEALTH"),
    Column("POD", lambda row: f"{row.namespace}/{row.pod}" if row.pod else None),
]


def device_rows(snapshot: Snapshot) -> list[DeviceRow]:
    return [
        DeviceRow(node.node, device) for node in snapshot.nodes for device in node.devices or [DeviceSample()]
    ]


def snapshot_table(snapshot: Snapshot) -> Table:
    title = say(
        "cli.monitor.title",
        device_type=snapshot.device_type,
        time=snapshot.time,
        nodes=snapshot.summary.nodes,
        devices=snapshot.summary.devices,
    )
    return table(device_rows(snapshot), DEVICE_COLUMNS, title=title)


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
    if once:
        snapshot = nufi.monitoring.snapshot(device_type, params)
        if output is Format.table:
            console().print(snapshot_table(snapshot))
        else:
            emit(snapshot, output, None, [])
        return
    with nufi.monitoring.stream(device_type, params) as response:
        _follow(device_type, sse_events(response.iter_lines()), output, nufi.server)


def _follow(device_type: str, events: Iterator[tuple[str, str]], output: Format, server: str) -> None:
    live = Live(console=console(), auto_refresh=False) if output is Format.table else None
    try:
        if live is not None:
            live.start()
        for event, data in events:
            body = json.loads(data)
            if event == "end":
                break
            if output is not Format.table:
                # One JSON document per line, or YAML documents separated by `---`.
                typer.echo(
                    json.dumps(body, ensure_ascii=False) if output is Format.json else "---\n" + as_yaml(body)
                )
            elif event == "snapshot":
                assert live is not None
                live.update(snapshot_table(parsed(Snapshot, body, server)), refresh=True)
            elif event == "error":
                problem = parsed(StreamError, body, server)
                typer.echo(say("cli.monitor.error", detail=problem.detail), err=True)
    except KeyboardInterrupt:
        return
    finally:
        if live is not None:
            live.stop()
    typer.echo(say("cli.monitor.ended", device_type=device_type), err=True)
