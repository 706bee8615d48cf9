"""What a command prints: a rich table for people, JSON or YAML (the API's own bodies) for scripts."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

import typer
import yaml
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from nufi.cli.say import say


class Format(StrEnum):
    table = "table"
    json = "json"
    yaml = "yaml"


OutputOption = Annotated[Format, typer.Option("--output", "-o", help="cli.help.option.output")]
ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="NUFI_SERVER",
        help="cli.help.option.server",
        show_default=False,
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="NUFI_TOKEN",
        help="cli.help.option.token",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class Column:
    header: str
    # Reads a typed row (a view of the API's answer, or a row a command made of one).
    value: Callable[[Any], object]


def field(name: str, header: str | None = None) -> Column:
    return Column(header or name.upper(), lambda row: getattr(row, name, None))


def body_of(answer: BaseModel | Mapping[str, Any]) -> Any:
    """What scripts get: the fields the API answered, as it answered them."""
    if isinstance(answer, BaseModel):
        return answer.model_dump(mode="json", exclude_unset=True)
    return {key: body_of(value) if isinstance(value, BaseModel) else value for key, value in answer.items()}


def as_json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def as_yaml(data: object) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def table(rows: Sequence[Any], columns: Sequence[Column], title: str | None = None) -> Table:
    shown = Table(title=title, header_style="bold", show_edge=False, pad_edge=False)
    for column in columns:
        shown.add_column(column.header)
    for row in rows:
        shown.add_row(*(cell(column.value(row)) for column in columns))
    return shown


def cell(value: object) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def console() -> Console:
    return Console(soft_wrap=True)


def emit(
    data: BaseModel | Mapping[str, Any], fmt: Format, rows: Sequence[Any] | None, columns: Sequence[Column]
) -> None:
    """`data` as JSON or YAML, or `rows` (the items of `data`) as a table of `columns`."""
    if fmt is Format.json:
        typer.echo(as_json(body_of(data)))
    elif fmt is Format.yaml:
        typer.echo(as_yaml(body_of(data)), nl=False)
    elif not rows:
        typer.echo(say("cli.empty"))
    else:
        console().print(table(rows, columns))


def emit_one(data: BaseModel, fmt: Format, columns: Sequence[Column]) -> None:
    """One object: a two-column table of the chosen fields in table format."""
    if fmt is not Format.table:
        emit(data, fmt, None, columns)
        return
    shown = Table(show_header=False, show_edge=False, pad_edge=False)
    shown.add_column(style="bold")
    shown.add_column()
    for column in columns:
        shown.add_row(column.header, cell(column.value(data)))
    console().print(shown)
