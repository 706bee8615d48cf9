"""`make run` hands the sandbox the options the README moves it with, in the README's own words."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from nufi_sandbox.__main__ import parse_args

ROOT = Path(__file__).resolve().parents[3]


def _readme_make_runs() -> list[str]:
    """The ARGS of every `make run ARGS="..."` the README shows."""
    return re.findall(r'make run ARGS="([^"]+)"', (ROOT / "README.md").read_text(encoding="utf-8"))


def _dry_run(args: str) -> str:
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", f"ARGS={args}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_the_readme_moves_the_sandbox_through_make_run() -> None:
    shown = _readme_make_runs()
    assert shown, 'README.md shows no `make run ARGS="..."`'
    options = [parse_args(shlex.split(args)) for args in shown]
    assert any(parsed.port != 8080 for parsed in options), shown
    assert any(parsed.state_dir != Path(".sandbox") for parsed in options), shown


def test_make_run_passes_its_args_to_the_sandbox() -> None:
    for args in [*_readme_make_runs(), "--port 18080 --state-dir /tmp/nufi-elsewhere --fresh"]:
        command = _dry_run(args)
        assert command == f".venv/bin/nufi-sandbox {args}", command
        assert shlex.split(command)[1:] == shlex.split(args)


def test_make_help_names_the_args() -> None:
    done = subprocess.run(["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True)
    (run,) = [line for line in done.stdout.splitlines() if line.strip().startswith("make run ")]
    assert 'ARGS="--port' in run and "--state-dir" in run, run
