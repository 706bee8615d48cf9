"""What the sandbox prints once it is ready: where to go and how to sign in."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from nufi_sandbox.sandbox.state_file import SandboxState


def _shown(path: Path) -> str:
    """A path relative to the working directory when it is below it: shorter to read and to copy."""
    try:
        return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
    except ValueError:
        return str(path)


def print_ready(
    console: Console,
    state: SandboxState,
    *,
    state_file: Path,
    logs: Path,
    seconds: float,
    registered_lpu: str | None,
) -> None:
    rows = [
        ("Dashboard", f"{state.nufi_url}/"),
        ("API docs", f"{state.nufi_url}/docs"),
        ("Sign in", "admin / admin (role nufi-admin), user / user (no admin role)"),
        ("Token URL", f"{state.token_url}  (client_id=nufi-cli, password grant)"),
        ("Prometheus", state.prometheus_url),
        ("Kubernetes", f"{state.kube_api_url}  (KUBECONFIG={_shown(state.kubeconfig)})"),
        ("State", f"{_shown(state_file)}, logs in {_shown(logs)}/"),
    ]
    console.print()
    console.print(f"[bold green]NuFi sandbox ready[/] in {seconds:.1f} s")
    for label, value in rows:
        # soft_wrap: URLs are printed whole, never folded or cut at the terminal's width.
        console.print(f"  [bold]{label:<11}[/] {escape(value)}", soft_wrap=True)
    console.print()
    if registered_lpu is None:
        console.print(
            "The LPU (hyperaccel.ai/lpu) is on lpu-node-1 and lpu-node-2 but not registered in NuFi yet:",
            soft_wrap=True,
        )
        console.print('registering it is your first step (README, "First steps").')
    else:
        console.print(
            f"The LPU is registered in NuFi as `{registered_lpu}` (kept from an earlier run; "
            "--fresh starts from empty state).",
            soft_wrap=True,
        )
    console.print("Press Ctrl-C to stop.")
