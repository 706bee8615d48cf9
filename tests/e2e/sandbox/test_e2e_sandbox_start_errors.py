"""Starting the sandbox when something is in the way, and stopping it before it is ready."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

from e2e.e2e_sandbox_support import SandboxRun
from support.polling import poll


def test_a_busy_port_is_named_with_the_option_to_change_it(short_tmp: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "nufi_sandbox", "--state-dir", str(short_tmp / "s"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in done.stdout, done.stdout
    assert "--port" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    # Nothing was started or claimed.
    assert not (short_tmp / "s").exists()


def test_ctrl_c_while_starting_stops_what_already_runs(short_tmp: Path) -> None:
    run = SandboxRun.start(short_tmp)
    try:
        # Interrupt once the dev cluster is up and the node programs are being started.
        poll(lambda: _starting_programs(run), within=30, every=0.05, what="five programs started")
        run.children = run.started_programs()
        run.interrupt(signal.SIGINT)
        assert run.wait_exit() == 0, run.text()
        assert run.leftovers() == []
        assert "sandbox ready" not in run.text()
        assert not (run.state_dir / "sandbox.json").exists()
    finally:
        run.cleanup()


def _starting_programs(run: SandboxRun) -> bool:
    assert run.process.poll() is None, run.text()
    return len(run.started_programs()) >= 5
