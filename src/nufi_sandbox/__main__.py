"""`nufi-sandbox` / `make run`: the NuFi server against a local dev cluster, in the foreground."""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

import httpx

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import ManagedProcess


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="nufi-sandbox", description=__doc__)
    parser.add_argument("--state-dir", type=Path, default=Path(".sandbox"), help="default: .sandbox/")
    parser.add_argument("--port", type=int, default=8080, help="NuFi's port on 127.0.0.1 (default 8080)")
    parser.add_argument("--fresh", action="store_true", help="start from an empty state directory")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    state_dir: Path = args.state_dir.resolve()
    if args.fresh and state_dir.exists():
        shutil.rmtree(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    cluster = DevClusterProcess(state_dir / "cluster")
    nufi_url = f"http://127.0.0.1:{args.port}"
    server = ManagedProcess(
        "nufi",
        [Path(sys.executable).with_name("nufi"), "serve", "--host", "127.0.0.1", "--port", str(args.port)],
        log_dir=state_dir / "logs",
        env={
            "NUFI_KUBECONFIG": str(cluster.kubeconfig),
            "NUFI_DATABASE_URL": f"sqlite+aiosqlite:///{state_dir / 'nufi.db'}",
        },
    )
    try:
        print("starting the dev cluster …", flush=True)
        cluster.start()
        print(f"  Kubernetes API  {cluster.url}  (kubeconfig {cluster.kubeconfig})", flush=True)
        print("starting NuFi …", flush=True)
        server.start()
        server.wait_ready(
            lambda: httpx.get(f"{nufi_url}/healthz", timeout=1).status_code == 200,
            timeout=60,
            what="NuFi answering /healthz",
        )
        print(
            f"ready: NuFi is serving on {nufi_url}  (API docs {nufi_url}/docs; logs in {state_dir / 'logs'})",
            flush=True,
        )
        print("press Ctrl-C to stop", flush=True)
        while not stop.wait(0.5):
            if not server.is_running() or not cluster.process.is_running():
                print("a component exited unexpectedly; see the logs above", file=sys.stderr)
                return 1
        return 0
    finally:
        print("stopping …", flush=True)
        server.stop()
        cluster.stop()


if __name__ == "__main__":
    raise SystemExit(main())
