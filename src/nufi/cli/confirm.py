"""Asking before a command deletes: a yes/no question on a terminal, saying what goes with it; without a
terminal only `--yes` deletes, so a script never deletes by accident."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from nufi.cli import exits
from nufi.cli.say import say

YesOption = Annotated[bool, typer.Option("--yes", "-y", help="cli.help.option.yes")]


def stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def confirm_delete(question: str, consequence: str, *, yes: bool) -> None:
    """Returns when the deletion may go ahead; ends the command otherwise, having deleted nothing."""
    if yes:
        return
    if not stdin_is_terminal():
        raise exits.CliFailure(exits.USAGE, [say("cli.confirm.needs_yes")])
    typer.echo(consequence, err=True)
    if not typer.confirm(question, default=False, err=True):
        raise exits.CliFailure(exits.REFUSED, [say("cli.confirm.kept")])
