"""One mapped container: a local process in its own process group, restarted and probed like a kubelet would.

Processes are started synchronously from the event loop thread (the main thread of the dev cluster)
through `nufi_sandbox/die_with_parent.py`, so the parent-death signal fires only when the dev cluster
itself ends.
Exits are noticed through a pidfd, without a thread per process.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nufi_sandbox.devcluster.runtime.env import LaunchSpec
from nufi_sandbox.devcluster.runtime.probes import PortResolver, Prober, probe_kind
from nufi_sandbox.devcluster.runtime.unprivileged import RunAs, make_workdir
from nufi_sandbox.devcluster.sim.meta import now
from nufi_sandbox.pids import dying_with_parent, group_members, signal_group

log = logging.getLogger(__name__)

Obj = dict[str, Any]

BACKOFF_START_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 20.0
# A container that ran this long without exiting starts its next backoff from the beginning again.
BACKOFF_RESET_SECONDS = 60.0
START_ERROR_EXIT_CODE = 128


@dataclass
class ContainerPlan:
    name: str
    spec: LaunchSpec
    workdir: Path
    # Beside the work dir, not in it: the work dir is the program's own (a lab's home shows it).
    log: Path
    restart_policy: str
    local_port: int
    readiness: Obj | None
    liveness: Obj | None
    resolve_port: PortResolver
    # Who the process runs as (None: the dev cluster's own user); see unprivileged.py.
    run_as: RunAs | None = None


@dataclass
class _Run:
    popen: subprocess.Popen[bytes] | None
    started_at: str
    started_mono: float
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class ContainerProcess:
    """Lifecycle of one container's process; `on_change` is told whenever its status fields change."""

    def __init__(self, plan: ContainerPlan, on_change: Callable[[ContainerProcess], None]) -> None:
        self.plan = plan
        self._on_change = on_change
        self.restart_count = 0
        self.ready = False
        self.state: Obj = {"waiting": {"reason": "ContainerCreating"}}
        self.last_state: Obj = {}
        self._run: _Run | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._stopping = False
        self._backoff = BACKOFF_START_SECONDS

    @property
    def pid(self) -> int | None:
        run = self._run
        if run is None or run.popen is None or run.popen.returncode is not None:
            return None
        return run.popen.pid

    def status_fields(self) -> Obj:
        """The container status fields the process owns (the rest comes from the simulated runtime)."""
        return {
            "state": dict(self.state),
            "lastState": dict(self.last_state),
            "ready": self.ready,
            "started": "running" in self.state,
            "restartCount": self.restart_count,
        }

    # -- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Spawn the process now (synchronously: the status written next can say it runs)."""
        self._spawn()
        self._supervisor = asyncio.create_task(self._supervise(), name=f"container {self.plan.name}")

    async def stop(self, grace: float) -> None:
        """SIGTERM the process group, SIGKILL it after `grace` seconds; returns once nothing of it runs."""
        self._stopping = True
        run = self._run
        if self._supervisor is not None and self._supervisor is not asyncio.current_task():
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        if run is None or run.popen is None:
            return
        await _terminate_group(run.popen, grace)

    def _spawn(self) -> None:
        plan = self.plan
        make_workdir(plan.workdir, plan.run_as)
        env = dict(plan.spec.env)
        if plan.run_as is not None:
            # The dev cluster's HOME is root's: a process of another user keeps its files at home.
            env["HOME"] = str(plan.workdir)
        stamp = now()
        program = plan.spec.argv[0]
        try:
            if shutil.which(program, path=plan.spec.env.get("PATH")) is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
            with open(plan.log, "ab") as log_file:
                popen = subprocess.Popen(
                    dying_with_parent(plan.spec.argv, user=_user(plan.run_as)),
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    env=env,
                    cwd=plan.workdir,
                    start_new_session=True,
                )
        except OSError as exc:
            with contextlib.suppress(OSError), open(plan.log, "a") as log_file:
                log_file.write(f"failed to start {plan.spec.argv[0]}: {exc}\n")
            self._run = _Run(None, stamp, time.monotonic())
            self.state = {
                "terminated": {
                    "exitCode": START_ERROR_EXIT_CODE,
                    "reason": "StartError",
                    "message": f"failed to start {plan.spec.argv[0]}: {exc.strerror or exc}",
                    "startedAt": stamp,
                    "finishedAt": stamp,
                }
            }
            self.ready = False
            return
        self._run = _Run(popen, stamp, time.monotonic())
        self.state = {"running": {"startedAt": stamp}}
        self.ready = probe_kind(plan.readiness) in (None, "unsupported")
        log.info("container %s started: pid %d, port %d", plan.name, popen.pid, plan.local_port)

    async def _supervise(self) -> None:
        while not self._stopping:
            run = self._run
            assert run is not None
            if run.popen is not None:
                self._on_change(self)
                run.tasks = self._probe_tasks(run)
                try:
                    code = await _wait_exit(run.popen)
                finally:
                    for task in run.tasks:
                        task.cancel()
                self._exited(run, code)
            if not self._restarts(self._exit_code()):
                self._on_change(self)
                return
            if time.monotonic() - run.started_mono > BACKOFF_RESET_SECONDS:
                self._backoff = BACKOFF_START_SECONDS
            self.last_state = {"terminated": dict(self.state["terminated"])}
            self.state = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off {self._backoff:g}s restarting failed container={self.plan.name}",
                }
            }
            self._on_change(self)
            await asyncio.sleep(self._backoff)
            self._backoff = min(self._backoff * 2, BACKOFF_CAP_SECONDS)
            if self._stopping:
                return
            self.restart_count += 1
            self._spawn()

    def _exited(self, run: _Run, code: int) -> None:
        self.ready = False
        exit_code = code if code >= 0 else 128 - code  # killed by signal N: 128+N, as runtimes report
        self.state = {
            "terminated": {
                "exitCode": exit_code,
                "reason": "Completed" if exit_code == 0 else "Error",
                "startedAt": run.started_at,
                "finishedAt": now(),
            }
        }
        log.info("container %s exited with code %d", self.plan.name, exit_code)

    def _exit_code(self) -> int:
        return int(self.state.get("terminated", {}).get("exitCode", 0))

    def _restarts(self, exit_code: int) -> bool:
        policy = self.plan.restart_policy
        return policy == "Always" or (policy == "OnFailure" and exit_code != 0)

    # -- probes --------------------------------------------------------------------------------------

    def _probe_tasks(self, run: _Run) -> list[asyncio.Task[None]]:
        tasks = []
        plan = self.plan
        if probe_kind(plan.readiness) not in (None, "unsupported"):
            assert plan.readiness is not None
            readiness = Prober(plan.readiness, plan.resolve_port, self._readiness_changed, initial=False)
            tasks.append(asyncio.create_task(readiness.run(), name=f"readiness {plan.name}"))
        if probe_kind(plan.liveness) not in (None, "unsupported"):
            assert plan.liveness is not None
            liveness = Prober(plan.liveness, plan.resolve_port, self._liveness_changed(run), initial=True)
            tasks.append(asyncio.create_task(liveness.run(), name=f"liveness {plan.name}"))
        return tasks

    def _readiness_changed(self, ok: bool) -> None:
        if "running" in self.state and ok != self.ready:
            self.ready = ok
            self._on_change(self)

    def _liveness_changed(self, run: _Run) -> Callable[[bool], None]:
        def changed(ok: bool) -> None:
            if not ok and run.popen is not None and run.popen.returncode is None:
                log.info("container %s failed its liveness probe; killing it", self.plan.name)
                signal_group(run.popen.pid, signal.SIGKILL)

        return changed


def _user(run_as: RunAs | None) -> tuple[int, int] | None:
    # Changed by the exec helper, not subprocess (which would fork rather than vfork to do it).
    return None if run_as is None else (run_as.uid, run_as.gid)


async def _wait_exit(popen: subprocess.Popen[bytes]) -> int:
    """The exit code of `popen`, awaited through a pidfd (readable once the process has ended)."""
    if popen.poll() is not None:
        return int(popen.returncode)
    loop = asyncio.get_running_loop()
    try:
        fd = os.pidfd_open(popen.pid)
    except ProcessLookupError:
        return popen.wait()
    exited = loop.create_future()

    def readable() -> None:
        if not exited.done():
            exited.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await exited
    finally:
        loop.remove_reader(fd)
        os.close(fd)
    return popen.wait()


async def _terminate_group(popen: subprocess.Popen[bytes], grace: float) -> None:
    pgid = popen.pid
    if popen.poll() is None:
        signal_group(pgid, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_wait_exit(popen), timeout=max(grace, 0.0))
    # Whatever is left of the group (the leader past its grace, or children it spawned) is killed.
    if popen.poll() is None or group_members(pgid):
        signal_group(pgid, signal.SIGKILL)
        await _wait_exit(popen)
        deadline = time.monotonic() + 5.0
        while group_members(pgid) and time.monotonic() < deadline:  # noqa: ASYNC110 - /proc has no event
            await asyncio.sleep(0.02)
