"""One shape for every command that asks the API: its --server and --token options, the typed client
it is handed, and a failure turned into its lines on stderr and its exit code."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from nufi.cli.client import exits_on_failure
from nufi.cli.output import ServerOption, TokenOption
from nufi.cli.typed_client import connect

_CLIENT = "nufi"


def with_api(command: Callable[..., None]) -> Callable[..., None]:
    """`command(nufi, ...)` as typer takes it: its own options, then --server and --token, which
    make the client it is called with."""
    own = inspect.signature(command, eval_str=True)

    @functools.wraps(command)
    def run(*args: Any, server: str | None = None, token: str | None = None, **kwargs: Any) -> None:
        with connect(server, token) as nufi:
            command(nufi, *args, **kwargs)

    options = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
        for name, annotation in (("server", ServerOption), ("token", TokenOption))
    ]
    signature = own.replace(parameters=[*(p for p in own.parameters.values() if p.name != _CLIENT), *options])
    run.__signature__ = signature  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return exits_on_failure(run)
