"""An image's builder stage replayed without Docker: its COPY steps and its `uv sync` commands.

The replay copies what the build context would hold (the repository through .dockerignore) the way
COPY would, then runs the recipe's own `uv sync` lines with its own environment, so the resulting
virtual environment holds what the image's would.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

from support.uv import uv_command

from .deploy_dockerfile import Dockerfile, dockerignore_excludes, env_pairs
from .deploy_manifests import REPO_ROOT

DOCKERIGNORE = REPO_ROOT / ".dockerignore"

# What the replay changes in the recipe's environment, and why none of it changes what is installed:
# the host's uv cache serves the locked wheels (the image build has no cache to keep), and bytecode
# compilation only costs time here.
_REPLAY_DROPS = ("UV_NO_CACHE", "UV_COMPILE_BYTECODE")


def context_files(source: str, rules: str) -> list[str]:
    """The build-context paths COPY would take for one source (a file, or a directory's files)."""
    path = REPO_ROOT / source
    if path.is_file():
        return [] if dockerignore_excludes(rules, source) else [source]
    found = []
    for file in sorted(path.rglob("*")):
        relative = file.relative_to(REPO_ROOT).as_posix()
        if file.is_file() and not dockerignore_excludes(rules, relative):
            found.append(relative)
    return found


def _copy(arguments: str, root: Path, workdir: PurePosixPath, rules: str) -> None:
    *sources, destination = arguments.split()
    target = workdir / destination
    for source in sources:
        files = context_files(source, rules)
        assert files, f"COPY {source}: nothing of it is in the build context"
        for relative in files:
            # A directory's contents land in the destination; a file lands in it when it ends in /.
            if (REPO_ROOT / source).is_dir():
                inside = target / PurePosixPath(relative).relative_to(source)
            elif destination.endswith("/") or len(sources) > 1:
                inside = target / PurePosixPath(relative).name
            else:
                inside = target
            host = root / inside.relative_to("/")
            host.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / relative, host)


def replay_builder(recipe: Dockerfile, root: Path) -> dict[str, Path]:
    """Run the builder stage with `root` as its filesystem; returns its ENV paths mapped under root."""
    rules = DOCKERIGNORE.read_text()
    declared: dict[str, str] = {}
    workdir = PurePosixPath("/")
    for instruction in recipe.stage("builder").instructions:
        if instruction.keyword == "ENV":
            declared |= env_pairs(instruction.arguments)
        elif instruction.keyword == "WORKDIR":
            workdir = workdir / instruction.arguments
            (root / workdir.relative_to("/")).mkdir(parents=True, exist_ok=True)
        elif instruction.keyword == "COPY":
            _copy(instruction.arguments, root, workdir, rules)
        elif instruction.keyword == "RUN" and instruction.arguments.startswith("uv sync"):
            _uv(instruction.arguments, declared, root, workdir)
    return {key: root / value.lstrip("/") for key, value in declared.items() if value.startswith("/")}


def _uv(command: str, declared: dict[str, str], root: Path, workdir: PurePosixPath) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("UV_")}
    env.pop("VIRTUAL_ENV", None)
    for key, value in declared.items():
        env[key] = str(root / value.lstrip("/")) if value.startswith("/") else value
    for key in _REPLAY_DROPS:
        env.pop(key, None)
    # The image's base Python is a CPython 3.11 like the one running the tests.
    env["UV_PYTHON"] = sys.executable
    arguments = shlex.split(command)[1:]
    result = subprocess.run(
        [*uv_command(), *arguments],
        cwd=root / workdir.relative_to("/"),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"`{command}` failed:\n{result.stderr}"


def installed_distributions(venv: Path) -> set[str]:
    """Normalised names of the distributions in a virtual environment."""
    [site_packages] = venv.glob("lib/python3*/site-packages")
    return {
        entry.name.removesuffix(".dist-info").rsplit("-", 1)[0].lower().replace("_", "-")
        for entry in site_packages.glob("*.dist-info")
    }


def top_level_modules(venv: Path) -> set[str]:
    [site_packages] = venv.glob("lib/python3*/site-packages")
    return {entry.name.removesuffix(".py") for entry in site_packages.iterdir() if "." not in entry.stem}
