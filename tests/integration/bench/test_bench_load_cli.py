"""`python -m bench.load` as `make load` runs it: its options, and a short real run against the sandbox."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
OPTIONS = (
    "--seconds",
    "--readers",
    "--stream-share",
    "--range-share",
    "--poll-seconds",
    "--range-poll-seconds",
    "--dashboard-sessions",
    "--writers",
    "--write-pause",
)
# A sandbox start, a browser sign-in, five seconds of load and the stop, on a busy machine.
RUN_TIMEOUT = 240.0


def run_load(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.load", *args],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # SIGTERM is its Ctrl-C: it stops the sandbox it started before it exits.
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
        raise AssertionError(f"bench.load did not finish within {timeout:g} s:\n{output}") from None
    return subprocess.CompletedProcess(process.args, process.returncode, output, None)


def test_help_lists_every_option() -> None:
    done = run_load("--help", timeout=60)
    assert done.returncode == 0, done.stdout
    for option in OPTIONS:
        assert option in done.stdout, option


def test_a_short_run_reports_every_figure_and_no_error() -> None:
    done = run_load(
        "--seconds",
        "5",
        "--readers",
        "10",
        "--dashboard-sessions",
        "1",
        "--writers",
        "1",
        timeout=RUN_TIMEOUT,
    )
    out = done.stdout
    assert done.returncode == 0, out
    for route in (
        "GET /api/v1/monitoring/lpu ",
        "GET /api/v1/monitoring/lpu/range",
        "GET /api/v1/monitoring/lpu/stream",
        "PUT /api/v1/admin/thermal/policies/lpu",
        "PUT /api/v1/admin/devices/lpu",
        "POST /api/v1/admin/projects",
        "DELETE /api/v1/admin/projects/{name}",
        "dashboard: OIDC sign-in to the live monitoring page",
        "dashboard: page still live at the end",
    ):
        assert route in out, route
    assert re.search(r"stream events: [1-9][\d,]* snapshots over \d+ streams", out), out
    assert re.search(r"before the load \(no dashboard session open\) +\d+\.\d MiB", out), out
    assert re.search(r"range queries per distinct chart: \d+\.\d\d measured, \d+\.\d\d meant", out), out
    assert re.search(r"at the end of the run +\d+\.\d MiB", out), out
    instant = re.search(r"instant \(/api/v1/query\) +([\d,]+)", out)
    assert instant is not None and int(instant[1].replace(",", "")) > 0, out
    assert "instant queries per reader-minute" in out
    assert out.rstrip().endswith("errors: 0"), out
