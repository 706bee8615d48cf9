"""Regenerates the measured figures of docs/reliability.md from the commands that make them.

It runs, each in turn from the repository root: the long fuzz (`make fuzz`), every fault test, the
load run (`make load`) and the benchmarks (`make bench`); keeps each command's whole output in
`test-results/reliability/<step>.log`; and rewrites the part of docs/reliability.md between its
`figures` markers with, per step: the command, when and on what machine it ran, how long it took,
whether it passed, and the figures it printed. Everything outside the markers (what NuFi promises)
is written by hand and left as it is.

`--quick` gives each step small arguments (minutes instead of an hour) and says so in the document;
`--steps fuzz,faults` runs only those steps and keeps the other steps' last figures.

Run: `.venv/bin/python -m bench.reliability_report [--quick] [--steps fuzz,faults,load,bench]`
(also `make reliability`).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "docs" / "reliability.md"
LOGS = ROOT / "test-results" / "reliability"
START, END = "<!-- figures:start -->", "<!-- figures:end -->"
STEP_START = "<!-- step:{name} -->"
STEP_END = "<!-- /step:{name} -->"

FAULT_TESTS = (
    "tests/integration/faults",
    "tests/unit/auth/test_auth_verifier.py",
    "tests/integration/auth/test_auth_slow_issuer.py",
    "tests/integration/monitoring/test_monitoring_unavailable.py",
    "tests/integration/thermal/test_thermal_replicas.py",
    "tests/e2e/thermal/test_e2e_thermal_replicas.py",
)
# Log lines of the programs under test, not figures.
_NOISE = re.compile(r"^\s*(\d{4}-\d\d-\d\dT?[ \d:.]*\s*\[|\{\"|INFO|WARNING|DEBUG)")
# What the fuzz and the fault tests print (`print(...)` with -s), as opposed to their progress.
# (pytest -q prints them right after a test's progress dot, so they are searched for, not matched.)
_PRINTED_FIGURE = re.compile(r"(slowest answers|takeover seen|the successor acquired|reaction:|recovery:)")
_PYTEST_SUMMARY = re.compile(r"^=+ .*(passed|failed|error).* =+$|^\d+ (passed|failed)")


@dataclass(frozen=True)
class Step:
    name: str
    title: str
    argv: tuple[str, ...]
    env: dict[str, str]
    # pytest steps report their summary and the lines they print as figures; programs, every line.
    pytest: bool
    # Whether `--quick` gave this step smaller arguments than its documented size.
    shortened: bool = False


def steps(quick: bool) -> list[Step]:
    fuzz_examples = "100" if quick else "1000"
    load_args = "--seconds 20 --readers 50 --dashboard-sessions 4 --writers 2" if quick else ""
    bench_env = (
        {
            "BENCH_ARGS_check_resource_key": "--nodes 1000 --runs 3",
            "BENCH_ARGS_monitoring_snapshot": "--warm-seconds 10 --soak-seconds 0",
            "BENCH_ARGS_dashboard_page": "--runs 3 --hold-seconds 20 --rounds 1",
            "BENCH_ARGS_thermal_reaction": "--rounds 1",
        }
        if quick
        else {}
    )
    make_vars = [f"{name}={value}" for name, value in bench_env.items()]
    return [
        Step(
            "fuzz",
            f"Fuzzing: schemathesis, {fuzz_examples} examples per operation and mode, admin and user",
            ("make", "fuzz"),
            {"NUFI_FUZZ_EXAMPLES": fuzz_examples},
            pytest=True,
            shortened=quick,
        ),
        Step(
            "faults",
            "Faults: Prometheus, Kubernetes, the database, the identity provider, controller replicas",
            (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-s", *FAULT_TESTS),
            {},
            pytest=True,
        ),
        Step(
            "load",
            "Load: the sandbox under readers, dashboards and writers",
            ("make", "load", *([f"LOAD_ARGS={load_args}"] if load_args else [])),
            {},
            pytest=False,
            shortened=quick,
        ),
        Step(
            "bench",
            "Scale: the benchmarks of bench/",
            ("make", "bench", *make_vars),
            {},
            pytest=False,
            shortened=quick,
        ),
    ]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with_model = Path("/proc/cpuinfo")
    if with_model.exists():
        for row in with_model.read_text().splitlines():
            if row.startswith("model name"):
                cpu = row.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, {platform.system()}"


def figures_of(step: Step, output: str) -> list[str]:
    lines = [row.rstrip() for row in output.splitlines() if row.strip() and not _NOISE.match(row)]
    if not step.pytest:
        return lines
    # pytest's progress dots and tracebacks are not figures: keep what the tests print and the summary.
    kept = []
    for row in lines:
        figure = _PRINTED_FIGURE.search(row)
        if figure is not None:
            kept.append(row[figure.start() :])  # without the progress dots before it
        elif _PYTEST_SUMMARY.search(row):
            kept.append(row)
    return kept or lines[-5:]


def run(step: Step) -> str:
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{step.name}.log"
    print(f"== {step.name}: {shlex.join(step.argv)}", flush=True)
    started_at = datetime.now(UTC)
    started = time.monotonic()
    with open(log, "w") as sink:
        process = subprocess.run(
            step.argv,
            cwd=ROOT,
            env={**os.environ, **step.env},
            stdout=sink,
            stderr=subprocess.STDOUT,
            check=False,
        )
    took = time.monotonic() - started
    output = log.read_text(errors="replace")
    outcome = "passed" if process.returncode == 0 else f"FAILED (exit {process.returncode})"
    env = " ".join(f"{k}={v}" for k, v in step.env.items())
    # As typed from the repository root, whatever directory this machine keeps it in.
    argv = [arg.replace(f"{ROOT}/", "") for arg in step.argv]
    command = f"{env} {shlex.join(argv)}".strip()
    print(f"   {outcome} in {took / 60:.1f} min; output in {log.relative_to(ROOT)}", flush=True)
    body = "\n".join(figures_of(step, output))
    return (
        f"### {step.title}\n\n"
        f"`{command}` — {outcome}, {took / 60:.1f} min, {started_at:%Y-%m-%d %H:%M} UTC, on {machine()}.\n\n"
        f"```text\n{body}\n```\n"
    )


def replace_step(section: str, name: str, text: str) -> str:
    start, end = STEP_START.format(name=name), STEP_END.format(name=name)
    block = f"{start}\n{text}{end}"
    if start in section and end in section:
        before, rest = section.split(start, 1)
        return before + block + rest.split(end, 1)[1]
    return section.rstrip("\n") + "\n\n" + block + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small arguments: minutes, not an hour")
    parser.add_argument("--steps", default="fuzz,faults,load,bench", help="comma-separated steps to run")
    args = parser.parse_args()
    wanted = {name.strip() for name in args.steps.split(",") if name.strip()}
    chosen = [step for step in steps(args.quick) if step.name in wanted]
    unknown = wanted - {step.name for step in steps(args.quick)}
    if unknown:
        parser.error(f"unknown steps: {', '.join(sorted(unknown))} (choose from fuzz, faults, load, bench)")
    document = DOCUMENT.read_text()
    if START not in document or END not in document:
        parser.error(f"{DOCUMENT} has no {START} ... {END} section to fill")
    failed = False
    for step in chosen:
        text = run(step)
        if step.shortened:
            text = text.replace("\n\n`", "\n\nQuick run (`--quick`: small arguments). `", 1)
        failed = failed or "FAILED" in text.split("\n", 3)[2]
        # Written after every step, so a long run that is stopped keeps what it measured; read again
        # each time, so what was edited outside the markers meanwhile is kept.
        head, rest = DOCUMENT.read_text().split(START, 1)
        section, tail = rest.split(END, 1)
        section = replace_step(section, step.name, text)
        DOCUMENT.write_text(head + START + section.rstrip("\n") + "\n" + END + tail)
    print(f"wrote {DOCUMENT.relative_to(ROOT)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
