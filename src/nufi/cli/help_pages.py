"""`--help` in the operator's language: every help text of the command line is a catalog code
(`help="cli.help.devices.list"`), worded by `say` when typer builds the click commands.

The Typers are made with `cls=WordedGroup`; typer builds a group after its commands, so the group
words its whole tree then: the help of each command, option and argument, the `--help` option
and typer's completion options. The words typer puts around them, the "Usage:" heading, the panel
titles and the `[default: ...]`, `[env var: ...]` and `[required]` marks (typer's `rich_utils`
settings), are worded when the context's formatter starts a help page or an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from nufi.cli.say import say

if TYPE_CHECKING:
    from typer._click.core import Context, Parameter
    from typer._click.formatting import HelpFormatter
else:
    # The formatter typer's contexts make help pages with (`Context.formatter_class`).
    HelpFormatter = typer.Context.formatter_class

HELP_CODE_PREFIX = "cli.help."

# The options typer adds to the top-level group, worded by their names.
_TYPER_OPTIONS = {
    "install_completion": "cli.help.page.install_completion",
    "show_completion": "cli.help.page.show_completion",
}


def worded(text: str | None) -> str | None:
    """A help code in the operator's language; anything else as it is."""
    if text and text.startswith(HELP_CODE_PREFIX):
        return say(text)
    return text


class WordedFormatter(HelpFormatter):
    """The help formatter with the "Usage:" heading in the operator's language."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        if prefix is None:
            prefix = say("cli.help.page.usage") + " "
        super().write_usage(prog, args, prefix)


class WordedContext(typer.Context):
    formatter_class = WordedFormatter

    def make_formatter(self) -> HelpFormatter:
        # A help page and an error panel begin with the usage line, made with this formatter:
        # typer's rich help (imported only then, not for every command) gets its marks here.
        word_typer_marks()
        return super().make_formatter()


class WordedGroup(TyperGroup):
    """A typer group that words its help pages (and those of its commands) once it is built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        word_tree(self)

    def get_params(self, ctx: Context) -> list[Parameter]:
        # typer adds its completion options to the top-level group only after building it.
        params = super().get_params(ctx)
        for param in params:
            if param.name in _TYPER_OPTIONS and isinstance(param, TyperOption):
                param.help = say(_TYPER_OPTIONS[param.name])
        return params


def word_tree(command: TyperCommand | TyperGroup, parent: typer.Context | None = None) -> None:
    """Word the help texts of `command` and everything under it."""
    command.help = worded(command.help)
    command.short_help = worded(command.short_help)
    command.context_class = WordedContext
    for param in command.params:
        if isinstance(param, TyperOption | TyperArgument):
            param.help = worded(param.help)
    context = WordedContext(command, info_name=command.name, parent=parent)
    help_option = command.get_help_option(context)
    if help_option is not None:
        help_option.help = say("cli.help.page.help_option")
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            if isinstance(sub, TyperCommand | TyperGroup):
                word_tree(sub, context)


def word_typer_marks() -> None:
    """The panel titles and marks typer's rich help pages put around our texts."""
    import typer.rich_utils as marks  # costly: imported only for a help page or an error

    marks.ARGUMENTS_PANEL_TITLE = say("cli.help.page.arguments")
    marks.OPTIONS_PANEL_TITLE = say("cli.help.page.options")
    marks.COMMANDS_PANEL_TITLE = say("cli.help.page.commands")
    marks.ERRORS_PANEL_TITLE = say("cli.help.page.error")
    marks.RICH_HELP = say(
        "cli.help.page.try_help", command_path="{command_path}", help_option="{help_option}"
    )
    # typer fills these in with str.format: the catalog's fields become typer's.
    marks.DEFAULT_STRING = say("cli.help.page.default", value="{}")
    marks.ENVVAR_STRING = say("cli.help.page.env_var", value="{}")
    marks.REQUIRED_LONG_STRING = say("cli.help.page.required")
