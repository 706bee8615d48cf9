"""What /proc says of a process (its resident memory, its CPU time) and of the whole machine."""

from __future__ import annotations

import math
import os
from pathlib import Path

KIB_PER_MIB = 1024


def status_mib(pid: int | str = "self") -> dict[str, float]:
    """VmRSS and its anonymous and file-backed parts of process `pid`, in MiB."""
    found: dict[str, float] = {}
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = row.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            found[key] = int(value.split()[0]) / KIB_PER_MIB
    return found


def rss_mib(pid: int | str = "self") -> float:
    return status_mib(pid).get("VmRSS", math.nan)


def cpu_seconds(pid: int | None) -> float | None:
    """User and system CPU time of `pid` so far (fields 14 and 15 of /proc/<pid>/stat)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(") ")[2].split()
    except OSError:
        return None
    # Fields after the command name start at field 3 (state): fields 14 and 15 are at 11 and 12.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """Busy and total CPU time of the whole machine so far, in clock ticks (/proc/stat)."""
    ticks = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return sum(ticks) - idle, sum(ticks)
