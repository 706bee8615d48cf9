"""What a command prints: a rich table for people, JSON or YAML (the API's own bodies) for scripts."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

import typer
import yaml
from pydantic import BaseModel
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

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
    # The heading's message code (`cli.column.*`), worded in the operator's language when shown.
    header: str
    # Reads a typed row (a view of the API's answer, or a row a command made of one).
    value: Callable[[Any], object]
    # Free text (a reason, a list) may wrap onto more lines when the table is too wide. Every other
    # column keeps its values whole: an id, a name, a node or a pod is copied back into the next command.
    wraps: bool = False
    # An id too long for its share of the line folds after a `/`, `-` or `.` (a namespace above its pod,
    # a pod name over two lines of its cell): every character stays, to be joined back when copied.
    folds: bool = False


def field(name: str, header: str, *, wraps: bool = False, folds: bool = False) -> Column:
    return Column(header, lambda row: getattr(row, name, None), wraps, folds)


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
    """The rows as a table as wide as the terminal allows: only `wraps` columns give way, down to
    their longest word, and `folds` columns, down to an id's longest piece; the table is wider than
    the terminal rather than cut where it must be."""
    headers = [say(column.header) for column in columns]
    texts = [[cell(column.value(row)) for column in columns] for row in rows]
    natural, floor = [], []
    for i, column in enumerate(columns):
        shown_texts = [headers[i], *(row[i] for row in texts)]
        natural.append(max(_widest(text.splitlines()) for text in shown_texts))
        floor.append(_least(column, shown_texts) if column.wraps or column.folds else natural[-1])
    widths = column_widths(natural, floor, console().width)
    shown = Table(title=title, header_style="bold", show_edge=False, pad_edge=False)
    for header, width, column in zip(headers, widths, columns, strict=True):
        shown.add_column(header, width=width, no_wrap=not column.wraps, overflow="fold")
    for row in texts:
        shown.add_row(
            *(
                _folded(text, width) if column.folds else text
                for text, width, column in zip(row, widths, columns, strict=True)
            )
        )
    return shown


def _least(column: Column, texts: Sequence[str]) -> int:
    """The narrowest a giving column may be: its longest word, or an id's longest piece between folds."""
    if column.folds:
        return max(_widest(_FOLD_AFTER.findall(text)) for text in texts)
    return max(_widest(text.split()) for text in texts)


# The pieces of an id a fold may fall between: each runs up to and with its `/`, `-` or `.`.
_FOLD_AFTER = re.compile(r"[^/.-]*[/.-]|[^/.-]+$")


def fold(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, cut after a `/` first (the namespace above its pod), then
    after the last `-` or `.` that fits; a piece longer than a line is cut where the line ends."""
    if cell_len(text) <= width:
        return [text]
    head, slash, tail = text.partition("/")
    if slash and tail:
        return fold(head + slash, width) + fold(tail, width)
    lines: list[str] = []
    while cell_len(text) > width:
        fits = max(_fitting(text, width), 1)
        breaks = [end for end in range(1, fits + 1) if text[end - 1] in "-."]
        cut = breaks[-1] if breaks else fits
        lines.append(text[:cut])
        text = text[cut:]
    return [*lines, text]


def _fitting(text: str, width: int) -> int:
    """How many characters of `text` fit in `width` cells (a double-width one never half fits)."""
    used = 0
    for count, char in enumerate(text):
        used += cell_len(char)
        if used > width:
            return count
    return len(text)


def _folded(text: str, width: int) -> str:
    return "\n".join(line for part in text.splitlines() for line in fold(part, width))


# Between two columns: a space, the rule, a space.
_GAP = 3


def column_widths(natural: Sequence[int], floor: Sequence[int], room: int) -> list[int]:
    """Each column's width, from its `floor` up to its `natural` width: what `room` leaves over the
    floors is shared out, the column wanting least served first, so no room is left unused."""
    widths = list(floor)
    left = room - table_width(floor)
    growing = sorted((want - least, i) for i, (want, least) in enumerate(zip(natural, floor, strict=True)))
    growing = [(more, i) for more, i in growing if more > 0]
    for served, (more, index) in enumerate(growing):
        extra = min(more, max(left // (len(growing) - served), 0))
        widths[index] += extra
        left -= extra
    return widths


def table_width(widths: Sequence[int]) -> int:
    return sum(widths) + _GAP * max(len(widths) - 1, 0)


def _widest(texts: Sequence[str]) -> int:
    return max((cell_len(text) for text in texts), default=0)


def in_words(area: str, value: object, known: Collection[str]) -> object:
    """A value the server words as a fixed token (`ok`, `hot`) in the operator's words: the catalog's
    `{area}.{value}` for the tokens it knows, any other as it came."""
    return say(f"{area}.{value}") if value in known else value


def cell(value: object) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return say("cli.value.yes" if value else "cli.value.no")
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def console() -> Console:
    return Console(soft_wrap=True)


def show(*parts: Table | Text) -> None:
    """Print tables of `table()`, and lines between them, whole: a console narrower than a table's
    columns would cut them."""
    out = console()
    widths = [[column.width or 0 for column in part.columns] for part in parts if isinstance(part, Table)]
    needed = max(map(table_width, widths), default=0)
    if needed > out.width:
        out = Console(soft_wrap=True, width=needed)
    for part in parts:
        out.print(part)


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
        show(table(rows, columns))


def emit_one(data: BaseModel, fmt: Format, columns: Sequence[Column]) -> None:
    """One object: a two-column table of the chosen fields in table format."""
    if fmt is not Format.table:
        emit(data, fmt, None, columns)
        return
    shown = Table(show_header=False, show_edge=False, pad_edge=False)
    shown.add_column(style="bold", no_wrap=True)
    shown.add_column(overflow="fold")
    for column in columns:
        shown.add_row(say(column.header), cell(column.value(data)))
    console().print(shown)
