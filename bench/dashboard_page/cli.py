"""`python -m bench.dashboard_page`'s options, the world and the server started, the two parts in
turn in one signed-in browser."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

from bench import dashboard_page
from bench.common.browser import CHROMIUM, launch_chromium, new_context
from bench.common.gpu_world import DESCRIPTION, gpu_world
from bench.common.proc import rss_mib
from bench.dashboard_page.memory import OPEN_PAGES, memory_per_page
from bench.dashboard_page.pages import USERNAME, sign_in, time_to_content
from bench.dashboard_page.server import World, serving
from nufi.logging import configure_logging
from nufi.monitoring.settings import MonitoringSettings
from nufi_sandbox.sandbox.components import REALM_FILE


async def measure(
    world: World, runs: int, hold_seconds: float, rounds: int, server_env: dict[str, str]
) -> None:
    settings = world.settings
    token = await asyncio.to_thread(world.identity.password_token, USERNAME, USERNAME)
    async with serving(settings, world.work, server_env) as server, async_playwright() as playwright:
        print(
            f"NuFi (API and dashboard) at {server.url}, uvicorn in process {server.pid}"
            + (f" (environment {' '.join(f'{k}={v}' for k, v in server_env.items())})" if server_env else "")
            + f"; refresh interval {MonitoringSettings.from_settings(settings).refresh_seconds:g} s; "
            f"RSS {rss_mib(server.pid):.1f} MiB",
            flush=True,
        )
        browser = await launch_chromium(playwright)
        try:
            context = await new_context(browser)
            await sign_in(context, server.url)
            await time_to_content(context, server.url, runs, token)
            await memory_per_page(context, server, hold_seconds, rounds)
            await context.close()
        finally:
            await browser.close()


def environment(value: str) -> tuple[str, str]:
    name, equals, setting = value.partition("=")
    if not name or not equals:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {value!r}")
    return name, setting


def _at_least_one(text: str) -> int:
    # Zero rounds or runs would leave nothing to report (and nothing to take a ratio of).
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> None:
    doc = dashboard_page.__doc__
    parser = argparse.ArgumentParser(
        prog="python -m bench.dashboard_page", description=doc.splitlines()[0] if doc else None
    )
    parser.add_argument("--runs", type=_at_least_one, default=7, help="timed openings of the page")
    parser.add_argument(
        "--hold-seconds", type=float, default=300.0, help=f"how long the {OPEN_PAGES} pages stay open"
    )
    parser.add_argument(
        "--rounds", type=_at_least_one, default=2, help="times the pages are opened, held and closed"
    )
    parser.add_argument(
        "--server-env",
        type=environment,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set in the server process' environment (MALLOC_ARENA_MAX=2, NUFI_BENCH_TRACEMALLOC=1)",
    )
    args = parser.parse_args()
    configure_logging("console", "warning")
    with tempfile.TemporaryDirectory(prefix="nufi-bench-dashboard-") as scratch:
        print(
            f"{DESCRIPTION}, the dev identity provider with the sandbox realm; browser {CHROMIUM} "
            f"headless (Playwright); --runs {args.runs}, --hold-seconds {args.hold_seconds:g}, "
            f"--rounds {args.rounds}; starting it",
            flush=True,
        )
        with gpu_world(Path(scratch), users_file=REALM_FILE) as gpu:
            world = World(gpu)
            asyncio.run(measure(world, args.runs, args.hold_seconds, args.rounds, dict(args.server_env)))
