"""Thermal control's reaction and recovery in the sandbox, with real requests, in scrape intervals.

Starts a sandbox (dev cluster, mock LPU exporters, real Prometheus, NuFi), deploys the mock inference
server on both LPU nodes, enables a policy, and keeps requests flowing through the Service. Each round
forces lpu-node-1 to 95 °C at its exporter and measures:

- reaction: force → the last request answered by lpu-node-1, held to trip hold + two scrape intervals
  + one evaluation (the refresh interval) + one controller pass;
- recovery: force lifted → the first request answered by lpu-node-1 again, held to the resume hold +
  the same allowance. Recovery can never be shorter than the resume hold.

Prints each round and the medians in seconds and in scrape intervals, beside the bound. Never fails on
time. Usage: python -m bench.thermal_reaction [--rounds 3] [--trip-hold 2] [--resume-hold 4]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

# The sandbox runner the end-to-end tests use (tests/ is where the shared harness lives).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, bearer, token

PROJECT, HOT, COOL, MODEL = "bench-heat", "lpu-node-1", "lpu-node-2", "mock-lpu-llm"
SCRAPE_SECONDS = 1.0  # the sandbox's scrape interval (and so its monitoring refresh)


def _until(check: Any, within: float, what: str) -> Any:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise SystemExit(f"not {what} within {within:g} s")


class Steady:
    """Requests through the Service, one after another, remembering which node answered when."""

    def __init__(self, kube: httpx.Client) -> None:
        self.kube = kube
        self.seen: list[tuple[float, str | None]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        path = f"/api/v1/namespaces/{PROJECT}/services/llm:8000/proxy/v1/completions"
        while not self.stop.is_set():
            try:
                response = self.kube.post(path, json={"model": MODEL, "prompt": "hi", "max_tokens": 2})
                node = response.json()["nufi"]["node"] if response.status_code == 200 else None
            except httpx.HTTPError:
                node = None
            self.seen.append((time.monotonic(), node))
            time.sleep(0.02)

    def since(self, start: float) -> list[tuple[float, str | None]]:
        return [item for item in list(self.seen) if item[0] >= start]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trip-hold", type=int, default=2)
    parser.add_argument("--resume-hold", type=int, default=4)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bth-", dir="/tmp"))
    run = SandboxRun.start(work)
    try:
        state = run.wait_ready()
        _measure(state, args.rounds, args.trip_hold, args.resume_hold)
    finally:
        run.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def _measure(state: dict[str, Any], rounds: int, trip_hold: int, resume_hold: int) -> None:
    admin = bearer(token(state, "admin", "admin"))
    kube_token = yaml.safe_load(Path(state["kubeconfig"]).read_text())["users"][0]["user"]["token"]
    override = str(state["exporters"][HOT]).replace("/metrics", "/control/override")
    with (
        httpx.Client(base_url=state["nufi_url"], headers=admin, timeout=30) as nufi,
        httpx.Client(base_url=state["kube_api_url"], headers=bearer(kube_token), timeout=30) as kube,
    ):
        _until(
            lambda: nufi.post("/api/v1/admin/devices", json=LPU_REGISTRATION).status_code == 201, 60, "lpu"
        )
        nufi.post("/api/v1/admin/projects", json={"name": PROJECT, "members": []}).raise_for_status()
        nufi.post(
            f"/api/v1/projects/{PROJECT}/deployments",
            json={
                "name": "llm",
                "image": state["images"]["inference"],
                "args": ["inference", "--model", MODEL],
                "accelerator": {"device_type": "lpu", "count": 1},
                "replicas": 2,
                "port": 8000,
                "readiness_path": "/health",
            },
        ).raise_for_status()
        _until(
            lambda: nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["status"] == "Ready",
            120,
            "Ready",
        )
        policy = {"enabled": True, "trip_hold_seconds": trip_hold, "resume_hold_seconds": resume_hold}
        nufi.put("/api/v1/admin/thermal/policies/lpu", json=policy).raise_for_status()
        steady = Steady(kube)
        steady.thread.start()
        allowance = 2 * SCRAPE_SECONDS + SCRAPE_SECONDS + SCRAPE_SECONDS / 2
        reactions, recoveries, failures = [], [], 0
        try:
            for number in range(1, rounds + 1):
                forced = time.monotonic()
                body = {
                    "node": HOT,
                    "device": None,
                    "metric": "temperature",
                    "value": 95,
                    "duration_seconds": 600,
                }
                httpx.post(override, json=body, timeout=10).raise_for_status()

                def cut(start: float = forced) -> float | None:
                    seen = steady.since(start)
                    hot = [t for t, node in seen if node == HOT]
                    last = hot[-1] if hot else start
                    after = [node for t, node in seen if t > last]
                    return last if len(after) >= 40 and set(after) == {COOL} else None

                last_hot = _until(cut, 120, "cut")
                lifted = time.monotonic()
                httpx.delete(override, timeout=10)
                back = _until(
                    lambda start=lifted: next((t for t, n in steady.since(start) if n == HOT), None),
                    120,
                    "back",
                )
                failures += sum(1 for _, node in steady.since(forced) if node is None)
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
        finally:
            steady.stop.set()
            steady.thread.join(timeout=30)
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
    print(f"failed requests over all rounds: {failures}")


if __name__ == "__main__":
    main()
