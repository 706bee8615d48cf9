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
from nufi.cli.client import Api, exits_on_failure, server_of
from nufi.cli.output import Format, ServerOption, TokenOption, as_json, as_yaml, console
from nufi.cli.say import language, say
from nufi.errors import NufiError

PACK_SUFFIXES = (".yaml", ".yml")
_ACTION_STYLE = {"created": "green", "updated": "yellow", "deleted": "red", "unchanged": "dim"}
_ACTION_MARK = {"created": "+", "updated": "~", "deleted": "-", "unchanged": "="}

Files = Annotated[
    list[Path],
    typer.Option("--filename", "-f", help="cli.help.packs.filename"),
]
PackOutput = Annotated[Format, typer.Option("--output", "-o", help="cli.help.packs.output")]


@exits_on_failure
def export(
    device_id: Annotated[str, typer.Argument(help="cli.help.option.device_type")],
    server: ServerOption = None,
    token: TokenOption = None,
    output: PackOutput = Format.yaml,
) -> None:
    """Print a device type as a pack document (canonical YAML): `apply` elsewhere recreates it."""
    with Api(server_of(server), token) as api:
        document = api.json("GET", f"/api/v1/admin/devices/{device_id}/pack")
    if output is Format.json:
        typer.echo(as_json(document))
    else:
        from nufi.packs import dump_packs  # the pack models import the catalog: only when needed

        typer.echo(dump_packs([document]), nl=False)


@exits_on_failure
def apply(
    filename: Files,
    server: ServerOption = None,
    token: TokenOption = None,
    prune: Annotated[bool, typer.Option(help="cli.help.packs.prune")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="cli.help.packs.dry_run")] = False,
    force: Annotated[bool, typer.Option(help="cli.help.packs.force")] = False,
    output: PackOutput = Format.table,
) -> None:
    """Make the catalog hold these packs: create, update (and with --prune delete) device types."""
    answer = _apply(filename, server, token, dry_run=dry_run, force=force, prune=prune)
    if output is not Format.table:
        typer.echo(as_json(answer) if output is Format.json else as_yaml(answer), nl=output is Format.json)
        return
    _print_results(answer, show_changes=False)


@exits_on_failure
def diff(
    filename: Files,
    server: ServerOption = None,
    token: TokenOption = None,
    prune: Annotated[bool, typer.Option(help="cli.help.packs.diff_prune")] = False,
    exit_code: Annotated[bool, typer.Option("--exit-code", help="cli.help.packs.exit_code")] = False,
) -> None:
    """Show what `apply` would change, field by field; changes nothing, exits 0."""
    answer = _apply(filename, server, token, dry_run=True, force=False, prune=prune)
    _print_results(answer, show_changes=True)
    if exit_code and any(r.get("action") != "unchanged" for r in answer.get("results") or []):
        raise typer.Exit(exits.REFUSED)


def _apply(
    paths: list[Path], server: str | None, token: str | None, *, dry_run: bool, force: bool, prune: bool
) -> dict[str, Any]:
    documents = read_documents(paths)
    body = {"documents": documents, "dry_run": dry_run, "force": force, "prune": prune}
    with Api(server_of(server), token) as api:
        answer: dict[str, Any] = api.json("POST", "/api/v1/admin/device-packs/apply", json=body)
    return answer


def pack_files(path: Path) -> list[Path]:
    if str(path) == "-" or not path.is_dir():
        return [path]
    files = sorted(p for p in path.iterdir() if p.suffix in PACK_SUFFIXES and p.is_file())
    if not files:
        raise exits.CliFailure(exits.USAGE, [say("cli.usage.no_files", path=str(path))])
    return files


def read_documents(paths: list[Path]) -> list[dict[str, Any]]:
    from nufi.packs import parse_packs  # the pack models import the catalog: only when needed

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


def _print_results(answer: dict[str, Any], *, show_changes: bool) -> None:
    out = console()
    results = answer.get("results") or []
    counts = {action: 0 for action in _ACTION_STYLE}
    for result in results:
        action = str(result.get("action"))
        counts[action] = counts.get(action, 0) + 1
        style = _ACTION_STYLE.get(action, "")
        out.print(
            Text(
                f"{_ACTION_MARK.get(action, '?')} "
                + say("cli.packs.result", name=result.get("name"), action=action),
                style=style,
            )
        )
        if show_changes:
            for change in result.get("changes") or []:
                _print_change(change)
    if answer.get("dry_run"):
        out.print(say("cli.packs.dry_run"))
    if not any(counts[a] for a in ("created", "updated", "deleted")):
        out.print(say("cli.packs.no_changes"))
    out.print(say("cli.packs.summary", **{a: counts.get(a, 0) for a in _ACTION_STYLE}))


def _print_change(change: dict[str, Any]) -> None:
    out = console()
    out.print(Text(f"    {change.get('path')}:", style="bold"))
    if change.get("before") is not None:
        out.print(Text(f"      - {_inline(change['before'])}", style="red"))
    if change.get("after") is not None:
        out.print(Text(f"      + {_inline(change['after'])}", style="green"))


def _inline(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
