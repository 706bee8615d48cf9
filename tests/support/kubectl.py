"""kubectl, the reference client, run as a subprocess against a dev cluster process."""

from __future__ import annotations

import shutil
import subprocess

from nufi_sandbox.devcluster.launcher import DevClusterProcess

KUBECTL = shutil.which("kubectl")


def kubectl(cluster: DevClusterProcess, *args: str, stdin: str | None = None, check: bool = True) -> str:
    """kubectl's standard output; with `check=False` its errors follow, and a failure does not raise."""
    assert KUBECTL is not None
    result = subprocess.run(
        [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "--request-timeout=10s", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": str(cluster.state_dir), "PATH": "/usr/bin:/bin"},
    )
    if check and result.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed: {result.stderr}")
    return result.stdout + (result.stderr if not check else "")


def columns(table: str) -> list[str]:
    """A table's header cut into its column names (kubectl pads them with two spaces at least)."""
    return [name.strip() for name in table.splitlines()[0].split("  ") if name.strip()]


def row(table: str, first: str) -> list[str]:
    """The words of the row whose first cell is `first` (blank cells leave no word)."""
    return next(line.split() for line in table.splitlines()[1:] if line.split()[0] == first)
