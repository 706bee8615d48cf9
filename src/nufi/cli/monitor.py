"""`nufi monitor TYPE`: a type's nodes and devices, live from the SSE stream or once for scripts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

import typer
from rich.live import Live
from rich.table import Table

from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.output import (
    Column,
    Format,
    OutputOption,
    ServerOption,
    TokenOption,
    as_yaml,
    console,
    emit,
    table,
)
from nufi.cli.say import say

_GIB = 1024**3


def _memory(device: dict[str, Any]) -> str | None:
    used, total = device.get("memory_used_bytes"), device.get("memory_total_bytes")
    if used is None:
        return None
    shown = f"{used / _GIB:.1f}"
    return f"{shown}/{total / _GIB:.1f} GiB" if total else f"{shown} GiB"


DEVICE_COLUMNS = [
    Column("NODE", lambda row: row["node"]),
    Column("DEVICE", lambda row: row.get("device")),
    Column("UTIL %", lambda row: row.get("utilization_percent")),
    Column("MEMORY", _memory),
    Column("TEMP °C", lambda row: row.get("temperature_celsius")),
    Column("POWER W", lambda row: row.get("power_watts")),
    Column("HEALTH", lambda row: row.get("health")),
    Column("POD", lambda row: f"{row['namespace']}/{row['pod']}" if row.get("pod") else None),
]


def device_rows(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for node in snapshot.get("nodes") or []:
        devices = node.get("devices") or [{}]
        rows.extend({"node": node["node"], **device} for device in devices)
    return rows


def snapshot_table(snapshot: dict[str, Any]) -> Table:
    summary = snapshot.get("summary") or {}
    title = say(
        "cli.monitor.title",
        device_type=snapshot.get("device_type"),
        time=snapshot.get("time"),
        nodes=summary.get("nodes", 0),
        devices=summary.get("devices", 0),
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


@exits_on_failure
def monitor(
    device_type: Annotated[str, typer.Argument(help="cli.help.option.device_type")],
    once: Annotated[bool, typer.Option("--once", help="cli.help.monitor.once")] = False,
    node: Annotated[str | None, typer.Option(help="cli.help.monitor.node")] = None,
    sort: Annotated[str | None, typer.Option(help="cli.help.monitor.sort")] = None,
    limit: Annotated[int | None, typer.Option(help="cli.help.monitor.limit")] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    output: OutputOption = Format.table,
) -> None:
    """Watch a device type's devices live (Ctrl-C to stop); json/yaml print one document per snapshot."""
    params = {k: v for k, v in {"node": node, "sort": sort, "limit": limit}.items() if v is not None}
    with Api(server_of(server), token) as api:
        if once:
            snapshot = api.json("GET", f"/api/v1/monitoring/{device_type}", params=params)
            if output is Format.table:
                console().print(snapshot_table(snapshot))
            else:
                emit(snapshot, output, None, [])
            return
        with api.stream(f"/api/v1/monitoring/{device_type}/stream", params=params) as response:
            _follow(device_type, sse_events(response.iter_lines()), output)


def _follow(device_type: str, events: Iterator[tuple[str, str]], output: Format) -> None:
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
                live.update(snapshot_table(body), refresh=True)
            elif event == "error":
                typer.echo(say("cli.monitor.error", detail=body.get("detail", "")), err=True)
    except KeyboardInterrupt:
        return
    finally:
        if live is not None:
            live.stop()
    typer.echo(say("cli.monitor.ended", device_type=device_type), err=True)
