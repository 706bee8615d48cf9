"""Options and the order of the run."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from bench.common.printing import line
from bench.http_reads.compare import compare
from bench.http_reads.ranges import chart_views
from bench.http_reads.worlds import Page, gpu_page, lpu_page

VIEWERS = 50


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.http_reads", description=__doc__)
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each read phase")
    parser.add_argument("--runs", type=int, default=3, help="floor/NuFi pairs per page and client count")
    parser.add_argument("--clients", default="1,50,200", help="comma-separated client counts")
    parser.add_argument("--pages", default="lpu,gpu", help="lpu, gpu or both (the GPU world takes minutes)")
    options = parser.parse_args(argv)
    clients = tuple(int(n) for n in options.clients.split(","))
    pages = set(options.pages.split(","))
    if "lpu" in pages:
        print("== the LPU page of the sandbox", flush=True)
        with lpu_page() as page:
            compare(page.target, clients, options.runs, options.seconds)
            asyncio.run(_charts(page))
    if "gpu" in pages:
        print("== the GPU world: 1,000 nodes x 8 GPUs", flush=True)
        with tempfile.TemporaryDirectory(prefix="http-reads-gpu-") as work, gpu_page(Path(work)) as page:
            compare(page.target, clients, options.runs, options.seconds)
            asyncio.run(_charts(page))
    line("reads are answered 200 by both; floor/NuFi <= 1.0: NuFi at least as fast as the floor", "")
    return 0


async def _charts(page: Page) -> None:
    token = page.target.token
    await chart_views(page.nufi, page.type_id, token, page.prometheus, "utilization", 1)
    # Another chart, so the many viewers do not find the first one's answer kept.
    await chart_views(page.nufi, page.type_id, token, page.prometheus, "temperature", VIEWERS)
