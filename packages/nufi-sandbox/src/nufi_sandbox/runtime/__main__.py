"""`python -m nufi_sandbox.runtime jupyter|vscode [ARGS...]`: what the runtime map runs for notebook
images. ``$PORT`` and ``$NB_PREFIX`` say where to listen; the container's args come after and are
passed on to JupyterLab (its ``--Section.option=value`` words) or code-server (its options), except
those that would move the server."""

from __future__ import annotations

import argparse
import os
import sys

from nufi_sandbox.runtime import jupyter, vscode
from nufi_sandbox.runtime.prefix import port


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m nufi_sandbox.runtime",
        description="Serve a lab's editor on 127.0.0.1:$PORT under $NB_PREFIX.",
        # The container's args follow: none of them may be read as an abbreviation of ours.
        allow_abbrev=False,
    )
    parser.add_argument("editor", choices=["jupyter", "vscode"])
    parser.add_argument("--port", type=int, help="used when $PORT is unset (default 8888)")
    parser.add_argument(
        "--allow-origin",
        default=os.environ.get("NUFI_LAB_ALLOW_ORIGIN") or None,
        help="jupyter: the lab's public origin when the proxy in front rewrites Host "
        "(default: $NUFI_LAB_ALLOW_ORIGIN; unset: JupyterLab's same-origin check)",
    )
    args, extra = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    try:
        listen = port(os.environ, args.port)
    except ValueError as exc:
        parser.error(str(exc))
    if args.editor == "jupyter":
        jupyter.run(port=listen, allow_origin=args.allow_origin, extra=extra)
    else:
        vscode.run(port=listen, extra=extra)


if __name__ == "__main__":
    main()
