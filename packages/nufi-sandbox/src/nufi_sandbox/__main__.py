"""`nufi-sandbox` / `make run`: NuFi and the seed's whole world on 127.0.0.1, in the foreground.

A dev cluster with GPU, NPU and LPU nodes (the LPUs provided by real mock device plugin processes),
vendor-shaped exporters scraped by a real Prometheus every second, a Keycloak-shaped identity provider
(realm super-llm), an Alertmanager that Prometheus sends NuFi's alerts to, and the NuFi server wired
to all of them. Ctrl-C or SIGTERM stops everything.

A program that exits is restarted (with a back-off); `--stop-on-failure` stops everything instead.
Every program dies with the sandbox, also when it is killed with `kill -9`, and a start first stops
whatever an earlier run in the same state directory left running.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from nufi_sandbox.sandbox.banner import answering, banner_rows, print_ready
from nufi_sandbox.sandbox.errors import SandboxError
from nufi_sandbox.sandbox.layout import StateLayout, prepare, stop_leftovers
from nufi_sandbox.sandbox.orchestrator import Sandbox, SandboxOptions
from nufi_sandbox.sandbox.preflight import (
    check_port_free,
    ensure_alertmanager,
    ensure_code_server,
    ensure_prometheus,
    ensure_victoria_metrics,
)
from nufi_sandbox.sandbox.progress import StartupProgress
from nufi_sandbox.sandbox.topology import NODES


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (1-65535)")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="nufi-sandbox",
        description="Run NuFi with a local dev cluster (GPU, NPU and mock LPU nodes), exporters, "
        "Prometheus and an identity provider on 127.0.0.1, until Ctrl-C.",
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=Path(".sandbox"),
        help="where the database, keys, logs and sandbox.json live (default: .sandbox/)",
    )
    parser.add_argument("--port", type=_port, default=8080, help="NuFi's port on 127.0.0.1 (default 8080)")
    parser.add_argument(
        "--fresh", action="store_true", help="start from empty state (forget registered devices)"
    )
    parser.add_argument(
        "--prometheus", type=Path, help="Prometheus binary to run (default: the installed one)"
    )
    parser.add_argument(
        "--metrics",
        choices=("prometheus", "victoriametrics"),
        default="prometheus",
        help="the metrics engine NuFi reads: Prometheus (default), or VictoriaMetrics scraping the same "
        "exporters (alerts need Prometheus)",
    )
    parser.add_argument(
        "--stop-on-failure",
        action="store_true",
        help="stop everything when one program exits, instead of restarting it (for tests and CI)",
    )
    return parser.parse_args(argv)


async def _serve(sandbox: Sandbox, console: Console) -> int:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    stopping: list[str] = []

    def on_signal(sig: signal.Signals) -> None:
        if not stopping:
            stopping.append(sig.name)
            task.cancel()

    # SIGHUP too: the programs live in their own sessions, so a closed terminal reaches only us.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, on_signal, sig)
    began = time.monotonic()
    progress = sandbox.progress
    try:
        progress.start()
        state = await sandbox.start()
        progress.close()
        state.write(sandbox.layout.state_file)
        rows, missing = await answering(
            banner_rows(state, state_file=sandbox.layout.state_file, logs=sandbox.layout.logs)
        )
        print_ready(
            console,
            rows,
            missing=missing,
            seconds=time.monotonic() - began,
            registered_lpu=await sandbox.registered_lpu(),
        )
        await sandbox.watch()
        return 1  # not reached: watch() only ends by raising
    except asyncio.CancelledError:
        if not stopping:
            raise
        progress.fail_unfinished("stopped")
        progress.close()
        console.print(f"{stopping[0]} received: stopping …")
        return 0
    except SandboxError as exc:
        progress.fail_unfinished("")
        progress.close()
        console.print(f"[bold red]error:[/] {escape(str(exc))}")
        return 1
    finally:
        progress.close()
        sandbox.stop()
        sandbox.layout.release()


def main(argv: list[str] | None = None) -> int:
    # Until the event loop takes over, SIGTERM and SIGHUP interrupt like Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGHUP, signal.default_int_handler)
    args = parse_args(argv)
    console = Console(highlight=False)
    layout: StateLayout | None = None
    try:
        # Before the port check: what an earlier run left running may hold NuFi's port.
        for leftover in stop_leftovers(args.state_dir):
            console.print(
                f"stopped {leftover.name} (pid {leftover.pid}), left running by an earlier sandbox "
                f"in {args.state_dir}",
                markup=False,
                soft_wrap=True,
            )
        check_port_free(args.port)
        progress = StartupProgress(console)
        is_root = os.geteuid() == 0
        prometheus = ensure_prometheus(args.prometheus, is_root=is_root, announce=console.print)
        victoria_metrics = None
        if args.metrics == "victoriametrics":
            victoria_metrics = ensure_victoria_metrics(is_root=is_root, announce=console.print)
        alertmanager = ensure_alertmanager(is_root=is_root, announce=console.print)
        ensure_code_server(is_root=is_root)
        layout = prepare(args.state_dir, fresh=args.fresh, node_names=[node.name for node in NODES])
        options = SandboxOptions(
            port=args.port,
            prometheus_binary=prometheus,
            alertmanager_binary=alertmanager,
            metrics=args.metrics,
            victoria_metrics_binary=victoria_metrics,
            stop_on_failure=args.stop_on_failure,
        )
        sandbox = Sandbox(
            layout, options, progress, announce=lambda text: console.print(text, markup=False, soft_wrap=True)
        )
    except SandboxError as exc:
        if layout is not None:
            layout.release()
        console.print(f"[bold red]error:[/] {escape(str(exc))}")
        return 1
    except KeyboardInterrupt:
        if layout is not None:
            layout.release()
        return 0
    try:
        code = asyncio.run(_serve(sandbox, console))
    except KeyboardInterrupt:
        # A signal in the instant before the event loop took over; _serve has stopped everything.
        code = 0
    console.print("stopped" if code == 0 else "stopped after an error")
    return code


if __name__ == "__main__":
    sys.exit(main())
