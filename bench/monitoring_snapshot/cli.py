"""`python -m bench.monitoring_snapshot`'s options, the world started, the phases in turn."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

import httpx

from bench import monitoring_snapshot
from bench.common.gpu_world import DESCRIPTION, gpu_world
from bench.monitoring_snapshot.cold import cold
from bench.monitoring_snapshot.in_process import warm_in_process
from bench.monitoring_snapshot.over_http import warm_http
from bench.monitoring_snapshot.world import World
from nufi.db import Database
from nufi.logging import configure_logging


async def measure(world: World) -> None:
    settings = world.settings
    database = Database.from_settings(settings)
    await database.upgrade()
    try:
        async with httpx.AsyncClient(base_url=world.prometheus.url, timeout=60) as prometheus:
            await cold(world, database, prometheus)
            await warm_in_process(world, database, prometheus)
    finally:
        await database.close()
    async with httpx.AsyncClient(base_url=world.prometheus.url, timeout=60) as prometheus:
        await warm_http(world, prometheus)


def main() -> None:
    doc = monitoring_snapshot.__doc__
    parser = argparse.ArgumentParser(
        prog="python -m bench.monitoring_snapshot", description=doc.splitlines()[0] if doc else None
    )
    parser.add_argument("--warm-seconds", type=float, default=30.0, help="length of each warm phase")
    parser.add_argument("--soak-seconds", type=float, default=600.0, help="length of the soak; 0 skips it")
    args = parser.parse_args()
    # The access log of every read would drown the figures.
    configure_logging("console", "warning")
    with tempfile.TemporaryDirectory(prefix="nufi-bench-monitoring-") as scratch:
        print(f"{DESCRIPTION}; starting it", flush=True)
        with gpu_world(Path(scratch)) as gpu:
            world = World(gpu, args.warm_seconds, args.soak_seconds)
            print(
                f"refresh interval {world.refresh_seconds:g} s; warm phases {args.warm_seconds:g} s, "
                f"soak {args.soak_seconds:g} s",
                flush=True,
            )
            asyncio.run(measure(world))
