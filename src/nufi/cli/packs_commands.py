"""`nufi devices export | apply | diff`: device packs, the catalog as files kept in Git."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.text import Text

from nufi.cli import exits
from nufi.cli.command import with_api
from nufi.cli.output import Format, as_json, as_yaml, body_of, console
from nufi.cli.say import language, say
from nufi.cli.typed_client import NufiClient
from nufi.errors import NufiError
from nufi.packs.diff import ApplyOutcome, Change, PackResult
from nufi.packs.text import dump_packs, parse_packs

PACK_SUFFIXES = (".yaml", ".yml")
_ACTION_STYLE = {"created": "green", "updated": "yellow", "deleted": "red", "unchanged": "dim"}
_ACTION_MARK = {"created": "+", "updated": "~", "deleted": "-", "unchanged": "="}

Files = Annotated[
    list[Path],
    typer.Option("--filename", "-f", help="cli.help.packs.filename"),
]
PackOutput = Annotated[Format, typer.Option("--output", "-o", help="cli.help.packs.output")]


@with_api
def export(
    nufi: NufiClient,
    device_id: Annotated[str, typer.Argument(help="cli.help.option.device_type")],
    output: PackOutput = Format.yaml,
) -> None:
    """Print a device type as a pack document (canonical YAML): `apply` elsewhere recreates it."""
    document = nufi.devices.pack(device_id)
    if output is Format.json:
        typer.echo(as_json(document))
    else:
        typer.echo(dump_packs([document]), nl=False)


@with_api
def apply(
    nufi: NufiClient,
    filename: Files,
    prune: Annotated[bool, typer.Option(help="cli.help.packs.prune")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="cli.help.packs.dry_run")] = False,
    force: Annotated[bool, typer.Option(help="cli.help.packs.force")] = False,
    output: PackOutput = Format.table,
) -> None:
    """Make the catalog hold these packs: create, update (and with --prune delete) device types."""
    answer = nufi.packs.apply(read_documents(filename), dry_run=dry_run, force=force, prune=prune)
    if output is not Format.table:
        body = body_of(answer)
        typer.echo(as_json(body) if output is Format.json else as_yaml(body), nl=output is Format.json)
        return
    _print_results(answer, show_changes=False)


@with_api
def diff(
    nufi: NufiClient,
    filename: Files,
    prune: Annotated[bool, typer.Option(help="cli.help.packs.diff_prune")] = False,
    exit_code: Annotated[bool, typer.Option("--exit-code", help="cli.help.packs.exit_code")] = False,
) -> None:
    """Show what `apply` would change, field by field; changes nothing, exits 0."""
    answer = nufi.packs.apply(read_documents(filename), dry_run=True, force=False, prune=prune)
    _print_results(answer, show_changes=True)
    if exit_code and any(result.action != "unchanged" for result in answer.results):
        raise typer.Exit(exits.REFUSED)


def pack_files(path: Path) -> list[Path]:
    if str(path) == "-" or not path.is_dir():
        return [path]
    files = sorted(p for p in path.iterdir() if p.suffix in PACK_SUFFIXES and p.is_file())
    if not files:
        raise exits.CliFailure(exits.USAGE, [say("cli.usage.no_files", path=str(path))])
    return files


def read_documents(paths: list[Path]) -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = []
    for path in [file for given in paths for file in pack_files(given)]:
        try:
            text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        except OSError as exc:
            raise exits.CliFailure(
                exits.USAGE, [say("cli.usage.unreadable", path=str(path), error=exc.strerror)]
            ) from None
        try:
            documents.extend(parse_packs(text))
        except NufiError as exc:
            raise exits.CliFailure(
                exits.USAGE, [say("cli.usage.bad_pack", path=str(path), error=exc.text(language()))]
            ) from None
        except (ValueError, yaml.YAMLError) as exc:
            raise exits.CliFailure(
                exits.USAGE, [say("cli.usage.bad_pack", path=str(path), error=str(exc))]
            ) from None
    return documents


def _print_results(answer: ApplyOutcome, *, show_changes: bool) -> None:
    out = console()
    counts = {action: 0 for action in _ACTION_STYLE}
    for result in answer.results:
        counts[result.action] += 1
        out.print(_result_line(result))
        if show_changes:
            for change in result.changes:
                _print_change(change)
    if answer.dry_run:
        out.print(say("cli.packs.dry_run"))
    if not any(counts[a] for a in ("created", "updated", "deleted")):
        out.print(say("cli.packs.no_changes"))
    out.print(say("cli.packs.summary", **counts))


def _result_line(result: PackResult) -> Text:
    action = say(f"cli.packs.action.{result.action}")
    line = f"{_ACTION_MARK[result.action]} " + say("cli.packs.result", name=result.name, action=action)
    return Text(line, style=_ACTION_STYLE[result.action])


def _print_change(change: Change) -> None:
    out = console()
    out.print(Text(f"    {change.path}:", style="bold"))
    if change.before is not None:
        out.print(Text(f"      - {_inline(change.before)}", style="red"))
    if change.after is not None:
        out.print(Text(f"      + {_inline(change.after)}", style="green"))


def _inline(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
