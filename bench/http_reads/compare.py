"""Floor and NuFi read in turn by the client process; the figures and their ratios printed."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common.printing import line
from nufi_sandbox.processes import ManagedProcess, free_port

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Target:
    """A page to read: NuFi's URL of it, the issuer whose token reads it, and the token."""

    name: str
    nufi_url: str
    issuer: str
    token: str


@contextmanager
def floor_serving(target: Target, work: Path) -> Iterator[str]:
    """The floor answering the bytes NuFi answers for `target` now: its URL of the same path."""
    page = httpx.get(target.nufi_url, headers={"Authorization": f"Bearer {target.token}"}, timeout=60)
    page.raise_for_status()
    body = work / f"{target.name}.json"
    body.write_bytes(page.content)
    jwks_uri = httpx.get(f"{target.issuer}/.well-known/openid-configuration", timeout=10).json()["jwks_uri"]
    port = free_port()
    argv = [sys.executable, "-m", "bench.http_reads.floor", "--issuer", target.issuer]
    argv += ["--jwks-uri", jwks_uri, "--body", str(body), "--port", str(port)]
    process = ManagedProcess(f"floor-{target.name}", argv, log_dir=work, cwd=REPO).start()
    try:
        url = f"http://127.0.0.1:{port}"
        process.wait_ready(lambda: httpx.get(f"{url}/", timeout=1).status_code == 401, 30, "answering")
        line(f"{target.name}: page of {len(page.content):,} bytes", "")
        yield url + httpx.URL(target.nufi_url).raw_path.decode()
    finally:
        process.stop()


def read(url: str, token: str, clients: int, seconds: float) -> dict[str, Any]:
    argv = [sys.executable, "-m", "bench.http_reads.client", url, "--clients", str(clients)]
    argv += ["--seconds", str(seconds), "--header", f"Authorization: Bearer {token}"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, check=True)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def compare(target: Target, clients: tuple[int, ...], runs: int, seconds: float) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="http-reads-") as work,
        floor_serving(target, Path(work)) as floor,
    ):
        for count in clients:
            for run in range(runs):
                # Alternating which goes first, so neither always reads a machine the other warmed.
                order = [("floor", floor), ("NuFi", target.nufi_url)]
                if run % 2:
                    order.reverse()
                figures = {name: read(url, target.token, count, seconds) for name, url in order}
                _print(f"{target.name}, {count} clients, run {run + 1}", figures["floor"], figures["NuFi"])


def _print(label: str, floor: dict[str, Any], nufi: dict[str, Any]) -> None:
    for name, figures in (("floor", floor), ("NuFi", nufi)):
        failed = figures["failures"] + sum(n for status, n in figures["statuses"].items() if status != "200")
        line(
            f"{label}: {name}",
            f"{figures['reads_per_second']:7.0f} reads/s  p50 {figures['p50'] * 1000:6.1f} ms  "
            f"p99 {figures['p99'] * 1000:6.1f} ms  failed {failed}",
        )
    # At most 1.0 when NuFi serves at least as many reads per second as the floor.
    ratio = floor["reads_per_second"] / nufi["reads_per_second"]
    line(f"{label}: floor/NuFi (reads/s of floor over NuFi's)", f"{ratio:5.2f}")
