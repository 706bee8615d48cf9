"""`python -m bench.load`'s options, and the run from the sandbox's start to its stop."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from bench.common.sandbox import SandboxRun
from bench.load.plan import Plan
from bench.load.run import run
from bench.load.world import REFRESH_SECONDS, SetupError, sandbox_ready, start_sandbox


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load",
        description="Load the one-command sandbox with monitoring readers, dashboard sessions and admin "
        "writers at once, and print requests, errors and latency per route, stream events, NuFi's RSS "
        "and the queries Prometheus received. Exits 1 on any error, never on time.",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the load runs (default 60)")
    parser.add_argument(
        "--readers", type=int, default=200, help="monitoring readers: REST, range and streams (default 200)"
    )
    parser.add_argument(
        "--stream-share",
        type=float,
        default=0.25,
        help="share of the readers holding a stream (default 0.25)",
    )
    parser.add_argument(
        "--range-share", type=float, default=0.25, help="share of the readers reading /range (default 0.25)"
    )
    parser.add_argument(
        "--poll-seconds",
        type=float,
        default=REFRESH_SECONDS,
        help=f"time between a REST reader's reads (default {REFRESH_SECONDS:g} s, the refresh interval)",
    )
    parser.add_argument(
        "--range-poll-seconds",
        type=float,
        default=5.0,
        help="a range reader's time between reads (default 5)",
    )
    parser.add_argument(
        "--dashboard-sessions",
        type=int,
        default=20,
        help="signed-in browser sessions holding the live monitoring page (default 20)",
    )
    parser.add_argument("--writers", type=int, default=5, help="admin writers (default 5)")
    parser.add_argument(
        "--write-pause", type=float, default=2.0, help="a writer's time between writes (default 2)"
    )
    args = parser.parse_args(argv)
    for name in ("seconds", "poll_seconds", "range_poll_seconds", "write_pause"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("readers", "dashboard_sessions", "writers"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must not be negative")
    shares = (args.stream_share, args.range_share)
    if min(shares) < 0 or sum(shares) > 1:
        parser.error("--stream-share and --range-share must be between 0 and 1, together at most 1")
    return args


def plan_of(args: argparse.Namespace) -> Plan:
    streams = round(args.readers * args.stream_share)
    ranges = min(args.readers - streams, round(args.readers * args.range_share))
    return Plan(
        seconds=args.seconds,
        snapshot_readers=args.readers - streams - ranges,
        range_readers=ranges,
        stream_readers=streams,
        dashboard_sessions=args.dashboard_sessions,
        writers=args.writers,
        poll_seconds=args.poll_seconds,
        range_poll_seconds=args.range_poll_seconds,
        write_pause=args.write_pause,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = plan_of(args)
    # SIGTERM stops the run as Ctrl-C does, so the sandbox is stopped in both cases; SIGINT is set too,
    # since a job a script puts in the background inherits it ignored.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    work = Path(tempfile.mkdtemp(prefix="nufi-load-", dir="/tmp"))
    sandbox: SandboxRun | None = None
    try:
        print(f"starting the sandbox in {work} …", flush=True)
        sandbox = start_sandbox(work)

        async def everything() -> int:
            assert sandbox is not None
            state = await sandbox_ready(sandbox)
            return await run(plan, state, sandbox)

        return asyncio.run(everything())
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: stopping the sandbox", file=sys.stderr)
        return 130
    finally:
        if sandbox is not None:
            sandbox.cleanup()
        shutil.rmtree(work, ignore_errors=True)
