"""The sandbox looks after its programs: it stops what an earlier run left in its state directory,
restarts a program that dies, and takes every program with it when it is killed with `kill -9`.

One sandbox for the module, in order: started over a leftover from an "earlier run" that holds NuFi's
port; Prometheus killed and restarted; then the launcher itself killed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from e2e.e2e_sandbox_support import SandboxRun
from nufi_sandbox.pids import record_processes
from nufi_sandbox.processes import describe_pid, free_port, pid_alive
from support.polling import holds, poll

# Prometheus comes back after 1 s of back-off and about a second of its own start.
RESTART_WITHIN = 30.0
GONE_WITHIN = 10.0


def within(condition: Callable[[], object], seconds: float, what: str, run: SandboxRun) -> None:
    """`poll`, with the sandbox's output in the failure."""
    try:
        poll(condition, seconds, every=0.1, what=what)
    except AssertionError as missed:
        raise AssertionError(f"{missed}; sandbox output:\n{run.text()}") from None


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def leftover_holding(port: int, state_dir: Path) -> subprocess.Popen[bytes]:
    """A program an earlier sandbox in `state_dir` started and never stopped: it holds `port`, and the
    record the sandbox writes names it."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import socket, time; s = socket.create_server(('127.0.0.1', {port})); time.sleep(300)",
        ],
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    poll(lambda: holds(holder.poll() is None) and listening(port), what="the leftover listening")
    state_dir.mkdir(parents=True)
    (state_dir / ".nufi-sandbox").write_text("state directory of nufi-sandbox\n")
    record_processes(state_dir / "programs.json", [("nufi", holder.pid)])
    return holder


@pytest.fixture(scope="module")
def leftover_and_sandbox() -> Iterator[tuple[subprocess.Popen[bytes], SandboxRun]]:
    work = Path(tempfile.mkdtemp(prefix="sbx-", dir="/tmp"))
    port = free_port()
    holder = leftover_holding(port, work / ".sandbox")
    run = SandboxRun.start(work, port=port)
    try:
        run.wait_ready()
        yield holder, run
    finally:
        run.cleanup()
        if holder.poll() is None:
            holder.kill()
        holder.wait()
        shutil.rmtree(work, ignore_errors=True)


def test_a_start_stops_what_an_earlier_run_left_running(
    leftover_and_sandbox: tuple[subprocess.Popen[bytes], SandboxRun],
) -> None:
    holder, run = leftover_and_sandbox
    # Ready on the port the leftover held, so it was stopped before the port was checked.
    assert holder.wait(timeout=5) is not None
    assert f"stopped nufi (pid {holder.pid}), left running by an earlier sandbox" in run.text(), run.text()
    assert httpx.get(f"{run.state['nufi_url']}/healthz", timeout=5).status_code == 200
    # The record now names this run's programs.
    assert str(run.children[0]) in (run.state_dir / "programs.json").read_text()


def test_the_banner_lists_only_what_answers(
    leftover_and_sandbox: tuple[subprocess.Popen[bytes], SandboxRun],
) -> None:
    _, run = leftover_and_sandbox
    text = run.text()
    nufi = run.state["nufi_url"]
    # The dashboard sends a signed-out browser to the identity provider's sign-in page, which answers.
    signed_out = httpx.get(f"{nufi}/", timeout=5, follow_redirects=True)
    assert signed_out.status_code == 200 and "kc-form-login" in signed_out.text
    assert "not listed" not in text, text
    for label, url in [
        ("Dashboard", f"{nufi}/"),
        ("API docs", f"{nufi}/docs"),
        ("Token URL", run.state["token_url"]),
        ("Prometheus", run.state["prometheus_url"]),
        ("Alerts", run.state["alertmanager_url"]),
        ("Kubernetes", run.state["kube_api_url"]),
    ]:
        # The labels are padded to the longest one, whichever that is.
        assert re.search(rf"^  {re.escape(label)} +{re.escape(url)}(\s|$)", text, flags=re.M), (label, text)


def test_a_killed_program_is_restarted_and_answers_again(
    leftover_and_sandbox: tuple[subprocess.Popen[bytes], SandboxRun],
) -> None:
    _, run = leftover_and_sandbox
    prometheus_url = run.state["prometheus_url"]
    (old,) = [pid for pid in run.started_programs() if "prometheus --config.file" in describe_pid(pid)]
    os.kill(old, signal.SIGKILL)

    def back() -> bool:
        try:
            return httpx.get(f"{prometheus_url}/-/ready", timeout=2).status_code == 200 and old not in (
                run.started_programs()
            )
        except httpx.HTTPError:
            return False

    within(lambda: "prometheus exited unexpectedly" in run.text(), RESTART_WITHIN, "the exit reported", run)
    within(back, RESTART_WITHIN, "Prometheus answering again", run)
    within(lambda: "prometheus is answering again" in run.text(), RESTART_WITHIN, "the return reported", run)
    assert "prometheus exited unexpectedly (code -9)" in run.text()
    assert "restarting it in 1 s" in run.text()
    assert run.process.poll() is None, run.text()
    (new,) = [pid for pid in run.started_programs() if "prometheus --config.file" in describe_pid(pid)]
    assert f"prometheus restarted (pid {new})" in run.text()
    assert str(new) in (run.state_dir / "programs.json").read_text()


def test_kill_9_of_the_launcher_takes_every_program_with_it(
    leftover_and_sandbox: tuple[subprocess.Popen[bytes], SandboxRun],
) -> None:
    _, run = leftover_and_sandbox
    run.children = run.started_programs()
    # Cluster, identity provider, Alertmanager, Prometheus, 2 device plugins, a DRA driver, 6 exporters, NuFi.
    assert len(run.children) == 14, [describe_pid(pid) for pid in run.children]
    os.kill(run.process.pid, signal.SIGKILL)
    assert run.wait_exit() == -signal.SIGKILL
    within(lambda: not any(pid_alive(pid) for pid in run.children), GONE_WITHIN, "every program gone", run)
    assert run.leftovers() == []
