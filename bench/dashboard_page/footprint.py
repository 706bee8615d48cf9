"""What the server process holds at one moment (its footprint, read through the bench's own route
and /proc), and waiting for NiceGUI to let go of closed pages."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx

from bench.common.proc import status_mib
from bench.dashboard_page.server import Server
from bench.dashboard_server import CLIENTS_PATH

# NiceGUI deletes a disconnected client after `reconnect_timeout` (10 s in `mount_dashboard`), and one
# that never connected (a page closed before its socket did) when pruning clients older than 60 s.
SETTLE_SECONDS = 90.0
# Beyond that, how long a closed page's elements may take to go (its timers' last sleep).
RELEASE_SECONDS = 120.0
# Object types whose count changed most between two footprints, printed per round, among the
# most numerous types the server counts.
TYPES_SHOWN = 8
TYPES_COUNTED = 400
MIB = 1024 * 1024


@dataclass(frozen=True)
class Footprint:
    """What the server process holds at one moment: RSS (what the OS sees; anonymous and file-backed),
    what glibc's malloc has handed out (in use) and keeps free in its heaps, Python's allocated blocks
    (what the interpreter still holds, after a collection), NiceGUI clients and elements."""

    rss: float
    anon: float
    file: float
    malloc_used: float
    malloc_free: float
    pymalloc_arenas: float
    pymalloc_highwater: float
    pymalloc_used: float
    blocks: int
    clients: int
    elements: int
    threads: int
    types: dict[str, int] = field(default_factory=dict)
    traced: float | None = None

    @classmethod
    async def of(cls, server: Server, *, trim: bool = False) -> Footprint:
        """After a collection (and `malloc_trim(0)` with `trim`), the object types counted too."""
        answer = await server.footprint(trim=int(trim), types=TYPES_COUNTED, traced=1)
        status = status_mib(server.pid)
        malloc = answer["malloc"]
        pymalloc = answer.get("pymalloc", {})
        traced = answer.get("traced_bytes")
        return cls(
            rss=status["VmRSS"],
            anon=status["RssAnon"],
            file=status["RssFile"],
            malloc_used=(malloc.get("in_use_bytes", 0) + malloc.get("mmapped_bytes", 0)) / MIB,
            malloc_free=malloc.get("free_bytes", 0) / MIB,
            # pymalloc's arenas are 1 MiB each (CPython 3.10+).
            pymalloc_arenas=float(pymalloc.get("arenas", 0)),
            pymalloc_highwater=float(pymalloc.get("arenas_highwater", 0)),
            pymalloc_used=pymalloc.get("allocated_bytes", 0) / MIB,
            blocks=int(answer["blocks"]),
            clients=int(answer["clients"]),
            elements=int(answer["elements"]),
            threads=int(answer["threads"]),
            types={str(k): int(v) for k, v in answer.get("types", {}).items()},
            traced=None if traced is None else int(traced) / MIB,
        )

    def describe(self) -> str:
        return (
            f"{self.rss:7.1f} MiB RSS ({self.anon:.1f} anonymous, {self.file:.1f} file), malloc "
            f"{self.malloc_used:.1f} in use / {self.malloc_free:.1f} free, pymalloc "
            f"{self.pymalloc_arenas:.0f} arenas ({self.pymalloc_highwater:.0f} at most, "
            f"{self.pymalloc_used:.1f} MiB in blocks), {self.blocks:,} Python blocks, "
            f"{self.clients} NiceGUI clients, {self.elements:,} elements, {self.threads} threads"
            + ("" if self.traced is None else f", tracemalloc {self.traced:.1f} MiB")
        )


def type_changes(earlier: Footprint, later: Footprint) -> str:
    """The object types whose count changed most from `earlier` to `later`."""
    names = set(earlier.types) | set(later.types)
    changes = {name: later.types.get(name, 0) - earlier.types.get(name, 0) for name in names}
    biggest = sorted((c for c in changes.items() if c[1]), key=lambda c: -abs(c[1]))[:TYPES_SHOWN]
    return ", ".join(f"{name} {change:+,}" for name, change in biggest) or "none"


async def settle_clients(server: Server, baseline: int, seconds: float) -> None:
    """Wait (at most `seconds`) until NiceGUI is back to `baseline` clients in the server."""
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=server.url, timeout=60.0) as client:
        while time.monotonic() < deadline:
            response = await client.get(CLIENTS_PATH)
            response.raise_for_status()
            if int(response.json()["clients"]) <= baseline:
                return
            await asyncio.sleep(0.5)


async def elements_released(server: Server, baseline: int, seconds: float) -> bool:
    """Wait (at most `seconds`) until the server holds no more NiceGUI elements than `baseline`.

    A deleted client's timers hold their elements until their current sleep ends (the session check
    sleeps 30 s), so elements go some seconds after their client; ones that never go are a leak."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if int((await server.footprint())["elements"]) <= baseline:
            return True
        await asyncio.sleep(2.0)
    return False
