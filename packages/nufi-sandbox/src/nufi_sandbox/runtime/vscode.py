"""A real code-server for a VS Code lab pod: ``127.0.0.1:$PORT``, served at ``/``, its home the pod's
work dir (the lab's volume), with the switches and environment of the lab's manifest, as in production.

code-server serves at ``/`` with relative URLs and has no base-path option: the proxy in front takes the
lab's path off (NuFi's lab proxy, and Kubeflow's ``http-rewrite-uri: /``), so ``NB_PREFIX`` is not read.
NuFi's manifest turns its own sign-in off (``--auth none``): the server listens on the loopback interface
only, and NuFi's proxy decides who may open a lab. code-server still refuses a WebSocket whose Origin is
not the host the request names (``X-Forwarded-Host``, which the proxy sets to the lab's own origin).

The container's args are passed on (telemetry, update check and workspace trust off, in NuFi's), except
what says where to listen or where its files go: that is the dev cluster's to say. The folder it opens is
the work dir, whatever path the manifest names. So is ``HOME``, as ``/home/coder`` is the lab's volume in
production: code-server keeps its settings, extensions, logs and its own config file there, and its
terminals start there. Its environment is the pod's: the devices, and the manifest's
``EXTENSIONS_GALLERY`` (no gallery: VS Code reads that variable, not an option, for where it is).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from nufi_sandbox.code_server import OVERRIDE_ENV, CodeServerMissingError, binary
from nufi_sandbox.loopback import HOST

# Where it listens and where its files go are the dev cluster's to say: the manifest's are dropped.
_WIRING = frozenset(
    {"bind-addr", "host", "port", "socket", "socket-fd", "socket-mode", "user-data-dir", "extensions-dir"}
)
# code-server 4.x's options that take the next word as their value (its `--help`); the others are
# switches. `--cert` takes one only when a word follows, which is also how code-server reads it.
_VALUED = frozenset(
    {
        *_WIRING,
        "auth",
        "password",
        "hashed-password",
        "cert",
        "cert-host",
        "cert-key",
        "cookie-suffix",
        "link-protection-trusted-domains",
        "locale",
        "config",
        "trusted-origins",
        "install-extension",
        "enable-proposed-api",
        "uninstall-extension",
        "github-auth",
        "proxy-domain",
        "app-name",
        "welcome-text",
        "abs-proxy-base-path",
        "i18n",
        "idle-timeout-seconds",
        "reconnection-grace-time",
        "vscode-option",
        "session-socket",
        "log",
    }
)


def passed_on(extra: Sequence[str]) -> list[str]:
    """The container's args that reach code-server: its options, without the wiring ones (and their
    values); a word that is no option's value is a folder to open, and the work dir is opened instead."""
    kept: list[str] = []
    index = 0
    while index < len(extra):
        word = extra[index]
        index += 1
        if not word.startswith("--"):
            continue
        name = word[2:].split("=", 1)[0]
        value: list[str] = []
        if "=" not in word and name in _VALUED and index < len(extra) and not extra[index].startswith("--"):
            value, index = [extra[index]], index + 1
        if name not in _WIRING:
            kept += [word, *value]
    return kept


# The image's user (`coder`) logs in with bash, so a terminal opened in the workbench runs bash, not
# whatever shell the dev cluster's own user has.
IMAGE_SHELL = "/bin/bash"


def code_server_argv(*, program: Path, port: int, home: Path, extra: Sequence[str] = ()) -> list[str]:
    """The command line starting code-server on loopback at ``port``, with the options of ``extra``
    (see ``passed_on``)."""
    data = home / ".local" / "share" / "code-server"
    return [
        str(program),
        "--bind-addr",
        f"{HOST}:{port}",
        "--user-data-dir",
        str(data),
        "--extensions-dir",
        str(data / "extensions"),
        *passed_on(extra),
        str(home),
    ]


def code_server_env(env: Mapping[str, str], home: Path) -> dict[str, str]:
    """``env`` with the lab's home as HOME and the image user's shell as SHELL, and neither an XDG
    directory of the sandbox's user nor where the sandbox found code-server."""
    own = {key: value for key, value in env.items() if not key.startswith("XDG_") and key != OVERRIDE_ENV}
    own["HOME"] = str(home)
    own["SHELL"] = IMAGE_SHELL
    return own


def run(*, port: int, extra: Sequence[str]) -> None:
    """Replace this process with code-server: the dev cluster's signals then reach it directly."""
    try:
        program = binary()
    except CodeServerMissingError as exc:
        print(f"cannot start the VS Code lab: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    home = Path.cwd()
    argv = code_server_argv(program=program, port=port, home=home, extra=extra)
    print(f"code-server for {home} at http://{HOST}:{port}/", flush=True)
    os.execve(program, argv, code_server_env(os.environ, home))
