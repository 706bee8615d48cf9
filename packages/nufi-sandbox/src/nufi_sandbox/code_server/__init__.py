"""Where the code-server a VS Code lab runs is: the one `make setup` installed, or `$NUFI_CODE_SERVER`.

`make setup` runs `install.sh` beside this module, which installs the versions pinned by the
package.json and package-lock.json here (code-server and Node 24, from the npm registry) into a cache
directory outside the clone, once per machine. The directory is named by code-server's version and a
hash of the lock, so a changed pin is a new install, and it is complete only once its stamp file exists.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from nufi_sandbox.processes import MissingBinaryError

OVERRIDE_ENV = "NUFI_CODE_SERVER"
CACHE_ENV = "NUFI_CODE_SERVER_CACHE"
STAMP = ".installed"
_PINS = Path(__file__).parent


class CodeServerMissingError(MissingBinaryError):
    """code-server is not installed where the sandbox looks, or the override names no program."""


def pinned_version() -> str:
    """The code-server version package.json pins."""
    manifest = json.loads((_PINS / "package.json").read_text())
    return str(manifest["dependencies"]["code-server"])


def install_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where install.sh puts the pinned code-server: the same path it computes."""
    env = os.environ if env is None else env
    lock_hash = hashlib.sha256((_PINS / "package-lock.json").read_bytes()).hexdigest()[:12]
    cache = env.get(CACHE_ENV) or str(Path(env.get("XDG_CACHE_HOME") or _home(env) / ".cache") / "nufi")
    return Path(cache) / f"code-server-{pinned_version()}-{lock_hash}"


def program(env: Mapping[str, str] | None = None) -> Path:
    """Where the code-server program is, installed or not: `$NUFI_CODE_SERVER` when set, else the
    command install.sh writes into its directory."""
    env = os.environ if env is None else env
    override = env.get(OVERRIDE_ENV)
    return Path(override) if override else install_dir(env) / "bin" / "code-server"


def binary(env: Mapping[str, str] | None = None) -> Path:
    """The code-server program to run (see ``program``), or an error naming `make setup` when it is
    not there."""
    env = os.environ if env is None else env
    path = program(env)
    override = env.get(OVERRIDE_ENV)
    if override:
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise CodeServerMissingError(
            f"{OVERRIDE_ENV}={override} is not an executable file: run `make setup` (it installs "
            f"code-server and Node 24 once per machine), or point {OVERRIDE_ENV} at a code-server program"
        )
    if (path.parent.parent / STAMP).is_file() and os.access(path, os.X_OK):
        return path
    raise CodeServerMissingError(
        f"code-server {pinned_version()} is not installed (looked in {path.parent.parent}): run "
        f"`make setup`, which installs it and Node 24 from the npm registry once per machine, or set "
        f"{OVERRIDE_ENV} to a code-server program"
    )


def _home(env: Mapping[str, str]) -> Path:
    return Path(env["HOME"]) if env.get("HOME") else Path.home()
