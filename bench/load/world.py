"""The sandbox the load runs against: started, waited for, the PIDs of its programs and what /proc
says of them; and the error that means nothing was measured."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common.proc import cpu_seconds, machine_cpu, status_mib
from bench.common.sandbox import LPU_REGISTRATION, SandboxRun
from nufi_sandbox.processes import pid_alive, read_proc_stat
from nufi_sandbox.sandbox.orchestrator import SCRAPE_INTERVAL_SECONDS

STARTUP_TIMEOUT = 180.0
# The sandbox blanks every NUFI_* variable it does not set, so NuFi's refresh interval is its default:
# the scrape interval the sandbox gives it.
REFRESH_SECONDS = float(SCRAPE_INTERVAL_SECONDS)
TYPE_ID = str(LPU_REGISTRATION["id"])


class SetupError(RuntimeError):
    """The world could not be brought up; nothing was measured."""


def start_sandbox(work: Path) -> SandboxRun:
    # A program that dies under load stops the run instead of being restarted unseen.
    return SandboxRun.start(work, args=("--stop-on-failure",))


async def sandbox_ready(sandbox: SandboxRun) -> dict[str, Any]:
    try:
        return await asyncio.to_thread(sandbox.wait_ready, STARTUP_TIMEOUT)
    except AssertionError as exc:
        raise SetupError(str(exc)) from None


def program_pid(sandbox: SandboxRun, name: str) -> int | None:
    """The PID of a program of the sandbox (`nufi`, `prometheus`, ...): the sandbox records each
    program it starts in its state directory; it must be the sandbox's child."""
    try:
        records = json.loads((sandbox.state_dir / "programs.json").read_text())
    except (OSError, ValueError):
        records = []
    for record in records:
        if isinstance(record, dict) and record.get("name") == name:
            pid = int(record["pid"])
            stat = read_proc_stat(pid)
            if stat is not None and stat.ppid == sandbox.process.pid:
                return pid
    return None


def vm_rss_mib(pid: int | None) -> float | None:
    if pid is None or not pid_alive(pid):
        return None
    try:
        return status_mib(pid).get("VmRSS")
    except OSError:
        return None


@dataclass(frozen=True)
class CpuReading:
    nufi: float | None
    prometheus: float | None
    benchmark: float
    machine_busy: float
    machine_total: float

    @classmethod
    def now(cls, nufi: int | None, prometheus: int | None) -> CpuReading:
        busy, total = machine_cpu()
        return cls(cpu_seconds(nufi), cpu_seconds(prometheus), time.process_time(), busy, total)
