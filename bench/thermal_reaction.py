"""Protection's reaction and recovery in the sandbox, with real requests, in scrape intervals.

Starts a sandbox (dev cluster, mock LPU exporters, real Prometheus, NuFi), deploys the mock inference
server on both LPU nodes, enables a policy, and keeps requests flowing through the Service. Each round
forces lpu-node-1 to 95 °C (`--condition temperature`, the default) or its LPUs to unhealthy
(`--condition health`: `lpu_health` 0, the LPU registered with it as its health expression) at its
exporter and measures:

- reaction: force → the last request answered by lpu-node-1, held to trip hold + two scrape intervals
  + one evaluation (the refresh interval) + one controller pass;
- recovery: force lifted → the first request answered by lpu-node-1 again, held to the resume hold +
  the same allowance. Recovery can never be shorter than the resume hold.

Prints each round and the medians in seconds and in scrape intervals, beside the bound. Never fails on
time. Usage: python -m bench.thermal_reaction [--condition temperature|health] [--rounds 3]
[--trip-hold 2] [--resume-hold 4]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

# The sandbox runner and the thermal world the end-to-end tests use: importing bench.common.sandbox
# puts tests/, which holds that harness, on the import path.
from bench.common.sandbox import SandboxRun
from e2e.e2e_sandbox_support import LPU_REGISTRATION
from e2e.thermal.thermal_support import HOT_NODE, World, force, thermal_world
from support.lpu_type import LPU_METRICS, lpu_type

SCRAPE_SECONDS = 1.0  # the sandbox's scrape interval (and so its monitoring refresh)


def _until(check: Any, within: float, what: str) -> Any:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise SystemExit(f"not {what} within {within:g} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--condition", choices=("temperature", "health"), default="temperature")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trip-hold", type=int, default=2)
    parser.add_argument("--resume-hold", type=int, default=4)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bth-", dir="/tmp"))
    run = SandboxRun.start(work)
    try:
        run.wait_ready()
        health = args.condition == "health"
        registration = lpu_type(name="LPU", metrics={**LPU_METRICS, "health": "lpu_health"})
        with thermal_world(run, registration=registration if health else LPU_REGISTRATION) as world:
            reactions, recoveries, failures = _measure(
                world, args.rounds, args.trip_hold, args.resume_hold, health=health
            )
        print(f"condition: {args.condition}")
        _report(reactions, recoveries, failures, args.trip_hold, args.resume_hold)
    finally:
        run.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def _measure(
    world: World, rounds: int, trip_hold: int, resume_hold: int, *, health: bool
) -> tuple[list[float], list[float], list[float]]:
    """Reactions and recoveries in seconds, and when each failed request was answered."""
    holds = {"trip_hold_seconds": trip_hold, "resume_hold_seconds": resume_hold}
    policy: dict[str, Any] = {"enabled": True, **holds}
    if health:
        policy["unhealthy"] = {"enabled": True, **holds}
    world.nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy).raise_for_status()
    reactions: list[float] = []
    recoveries: list[float] = []
    failures: list[float] = []
    for number in range(1, rounds + 1):
        forced = time.monotonic()
        if health:
            sick = {"node": HOT_NODE, "device": None, "metric": "health", "value": 0, "duration_seconds": 600}
            httpx.post(world.override_url(HOT_NODE), json=sick, timeout=10).raise_for_status()
        else:
            force(world, HOT_NODE, 95)
        last_hot = _until(lambda start=forced: world.last_answer_before_cut(HOT_NODE, start), 120, "cut")
        lifted = time.monotonic()
        httpx.delete(world.override_url(HOT_NODE), timeout=10)
        back = _until(
            lambda start=lifted: next((t for t, n, _ in world.answers.since(start) if n == HOT_NODE), None),
            120,
            "back",
        )
        failures.extend(t for t, _, status in world.answers.since(forced) if status != 200)
        reactions.append(last_hot - forced)
        recoveries.append(back - lifted)
        print(
            f"round {number}: reaction {reactions[-1]:.2f} s "
            f"({reactions[-1] / SCRAPE_SECONDS:.1f} scrape intervals), "
            f"recovery {recoveries[-1]:.2f} s "
            f"({recoveries[-1] / SCRAPE_SECONDS:.1f} scrape intervals)",
            flush=True,
        )
        time.sleep(resume_hold)
    return reactions, recoveries, failures


def _report(
    reactions: list[float], recoveries: list[float], failures: list[float], trip_hold: int, resume_hold: int
) -> None:
    allowance = 2 * SCRAPE_SECONDS + SCRAPE_SECONDS + SCRAPE_SECONDS / 2
    reaction_bound = trip_hold + allowance
    recovery_bound = resume_hold + allowance
    print(f"scrape interval {SCRAPE_SECONDS:g} s; trip hold {trip_hold} s; resume hold {resume_hold} s")
    print(
        f"reaction median {statistics.median(reactions):.2f} s = "
        f"{statistics.median(reactions) / SCRAPE_SECONDS:.1f} scrape intervals "
        f"(bound: trip hold + 2 scrapes + 1 evaluation + 1 pass = {reaction_bound:.1f} s, "
        f"ratio {statistics.median(reactions) / reaction_bound:.2f})"
    )
    print(
        f"recovery median {statistics.median(recoveries):.2f} s = "
        f"{statistics.median(recoveries) / SCRAPE_SECONDS:.1f} scrape intervals "
        f"(floor: resume hold {resume_hold} s; bound {recovery_bound:.1f} s, "
        f"ratio {statistics.median(recoveries) / recovery_bound:.2f})"
    )
    print(f"failed requests over all rounds: {len(failures)}")


if __name__ == "__main__":
    main()
