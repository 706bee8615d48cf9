"""`nufi monitor TYPE`: a type's nodes and devices, live from the SSE stream or once for scripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

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
    fold,
    in_words,
    show,
    table,
)
from nufi.cli.say import local_time, say
from nufi.cli.typed_client import NufiClient
from nufi.models.answers import DeviceSample, Snapshot, View
from nufi.models.units import memory


class StreamError(View):
    detail: str = ""


def _memory(sample: DeviceSample) -> str | None:
    return memory(sample.memory_used_bytes, sample.memory_total_bytes)


_HEALTH_WORDS = ("ok", "unhealthy", "unknown")


def health_column(mapped: bool) -> Column:
    """A device's health in the operator's words; for a type that maps no health expression the
    server can only say `unknown`, so the column says that health is not mapped instead."""

    def worded(sample: DeviceSample) -> object:
        if sample.device is None:
            return None
        if not mapped:
            return say("cli.health.not_mapped")
        return in_words("cli.health", sample.health, _HEALTH_WORDS)

    return Column("cli.column.health", worded)


_DEVICE = field("device", "cli.column.device", folds=True)


def device_columns(health_mapped: bool) -> list[Column]:
    return [
        _DEVICE,
        field("utilization_percent", "cli.column.utilization"),
        Column("cli.column.memory", _memory),
        field("temperature_celsius", "cli.column.temperature"),
        field("power_watts", "cli.column.power"),
        health_column(health_mapped),
    ]


# A pod's name (up to 63 characters) and its namespace do not fit beside the readings in 80 columns:
# they get a table of their own under the node's devices, as wide as the line.
_POD_COLUMNS = [
    _DEVICE,
    Column("cli.column.pod", lambda sample: f"{sample.namespace}/{sample.pod}", folds=True),
]


def snapshot_parts(snapshot: Snapshot, health_mapped: bool) -> list[Table | Text]:
    """The snapshot as a person reads it: its title, then per node a heading with the node's name, its
    devices' readings and the pods using them. No blank line inside: a pipe gets one block per snapshot."""
    title = say(
        "cli.monitor.title",
        device_type=snapshot.device_type,
        time=local_time(snapshot.time),
        nodes=snapshot.summary.nodes,
        devices=snapshot.summary.devices,
    )
    parts: list[Table | Text] = [Text(title)]
    for node in snapshot.nodes:
        heading = say("cli.monitor.node", node=node.node)
        parts.extend(Text(line, style="bold") for line in fold(heading, console().width))
        if not node.devices:
            parts.append(Text(say("cli.monitor.no_devices")))
            continue
        parts.append(table(node.devices, device_columns(health_mapped)))
        if in_use := [sample for sample in node.devices if sample.pod]:
            parts.append(table(in_use, _POD_COLUMNS))
    return parts


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
            show(*snapshot_parts(snapshot, mapped))
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
                _redraw(snapshot_parts(parsed(Snapshot, body, watch.server), watch.health_mapped))
            elif event == "error":
                problem = parsed(StreamError, body, watch.server)
                typer.echo(say("cli.monitor.error", detail=problem.detail), err=True)
    except KeyboardInterrupt:
        return
    typer.echo(say("cli.monitor.ended", device_type=watch.device_type), err=True)


def _redraw(parts: list[Table | Text]) -> None:
    """A terminal shows the newest snapshot alone, from the top of the screen, as `watch` does (a
    table wider than the terminal wraps there rather than losing its ids); a pipe or a file gets
    each snapshot as a block of its own, written at once."""
    out = console()
    if out.is_terminal:
        out.clear()
    show(*parts)
    if not out.is_terminal:
        typer.echo("")
    sys.stdout.flush()
