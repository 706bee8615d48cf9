"""Starting the sandbox's world in dependency order, watching it, and stopping it in reverse.

Every program runs in its own process group and is stopped by PID: NuFi first, then the exporters,
device plugins and DRA drivers, Prometheus, Alertmanager and the identity provider, and the dev cluster last.
Independent parts boot concurrently, so the sandbox is ready in the time of its slowest part (usually
NuFi's own start, or the chain dev cluster → device plugins → node capacity), not the sum of all.

Once ready, a program that exits is started again after a back-off (supervision.py); with
`stop_on_failure` the first exit stops everything instead. Every program started is recorded in
the state directory (PID and start time) for the next start to stop should this run be killed hard.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

import httpx

from nufi_sandbox.alertmanager import AlertmanagerServer
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.pids import record_processes
from nufi_sandbox.processes import ManagedProcess, ProcessNotReadyError, free_port, pid_alive
from nufi_sandbox.prometheus import PrometheusQueryError, PrometheusServer, ScrapeJob
from nufi_sandbox.sandbox import components
from nufi_sandbox.sandbox.banner import registered_lpu
from nufi_sandbox.sandbox.errors import SandboxError
from nufi_sandbox.sandbox.layout import StateLayout
from nufi_sandbox.sandbox.node_programs import NodeProgram, start_node_programs
from nufi_sandbox.sandbox.progress import StartupProgress
from nufi_sandbox.sandbox.readiness import Readiness
from nufi_sandbox.sandbox.runtime_map import sandbox_runtime_map, write_runtime_map
from nufi_sandbox.sandbox.scrape import nufi_job, scrape_jobs
from nufi_sandbox.sandbox.state_file import SandboxState, exporter_base_url
from nufi_sandbox.sandbox.supervision import Supervised, Supervisor
from nufi_sandbox.sandbox.topology import NODES, SandboxNode, nodes_yaml
from nufi_sandbox.victoriametrics import VictoriaMetricsServer

STARTUP_TIMEOUT = 60.0
SCRAPE_INTERVAL_SECONDS = 1
_WATCH_INTERVAL = 0.5


@dataclass(frozen=True)
class SandboxOptions:
    port: int
    prometheus_binary: Path
    alertmanager_binary: Path | None = None
    # The metrics engine NuFi reads: Prometheus, or VictoriaMetrics (`victoria_metrics_binary`) scraping
    # the same jobs. VictoriaMetrics evaluates no alert rules: alerting needs Prometheus.
    metrics: Literal["prometheus", "victoriametrics"] = "prometheus"
    victoria_metrics_binary: Path | None = None
    nodes: tuple[SandboxNode, ...] = NODES
    # Stop everything when one program exits (the behaviour tests and CI want), instead of restarting it.
    stop_on_failure: bool = False


class Sandbox:
    """One sandbox run: `await start()`, then `await watch()` until stopped, and always `stop()`."""

    def __init__(
        self,
        layout: StateLayout,
        options: SandboxOptions,
        progress: StartupProgress,
        announce: Callable[[str], None] = print,
    ) -> None:
        self.layout = layout
        self.options = options
        self.progress = progress
        self._announce = announce
        self.nufi_url = f"http://127.0.0.1:{options.port}"
        # Logs of every program side by side in STATE_DIR/logs, also when the sockets live in /tmp.
        self.cluster = DevClusterProcess(
            layout.cluster_dir,
            nodes_file=layout.nodes_file,
            runtime_map=layout.runtime_map_file,
            log_dir=layout.logs,
        )
        self.idp = IdentityProviderProcess(layout.idp_dir, users_file=components.REALM_FILE)
        self.idp.process = ManagedProcess("idp", self.idp.process.argv, log_dir=layout.logs)
        self.exporter_ports = {node.name: free_port() for node in options.nodes}
        # What steers the exporters (docs/sandbox.md, "Isolation"): in sandbox.json, not in any pod.
        self.exporter_control_token = secrets.token_urlsafe(32)
        self.alertmanager = AlertmanagerServer(
            work_dir=layout.alertmanager_dir, binary=options.alertmanager_binary, port=free_port()
        )
        # NuFi's port is fixed before anything starts: Prometheus scrapes it from the first config on.
        jobs = [*scrape_jobs(options.nodes, self.exporter_ports), nufi_job(options.port)]
        self.prometheus = _metrics_server(layout, options, jobs, self.alertmanager.address)
        self._servers: list[ManagedProcess] = []
        self.node_programs: list[NodeProgram] = []
        self.exporters: list[ManagedProcess] = []
        self.nufi: ManagedProcess | None = None
        self._steps = _steps(options, self.prometheus.name)
        for key, label in self._steps.items():
            progress.add(key, label)

    # --- start ---------------------------------------------------------------------------------------

    async def start(self) -> SandboxState:
        """Start everything and return where it runs once NuFi and all data are ready."""
        async with httpx.AsyncClient(timeout=2.0) as client:
            ready = Readiness(client)
            self.layout.nodes_file.write_text(nodes_yaml(self.options.nodes))
            runtime_map = sandbox_runtime_map(self.options.nodes, self.exporter_ports)
            write_runtime_map(self.layout.runtime_map_file, runtime_map)
            self.progress.running("cluster")
            self.cluster.process.start()
            self._record()
            self.progress.running("idp")
            self.idp.work_dir.mkdir(parents=True, exist_ok=True)
            self.idp.process.start()
            self._record()
            # Alertmanager first: Prometheus sends it what fires from its first evaluation on.
            self.layout.alert_rules_dir.mkdir(exist_ok=True)
            self._start_server("alertmanager", self.alertmanager)
            self._start_server("prometheus", self.prometheus)
            # NuFi next: it is the slowest to boot, and it only needs the others' addresses now;
            # its readiness waits for them.
            self._start_nufi()
            self._record()
            await self._step(
                "cluster",
                self.cluster.process,
                lambda: ready.cluster(self.cluster.url, self.cluster.state_dir),
                f"at {self.cluster.url}",
            )
            self._start_node_agents()
            self._record()
            try:
                async with asyncio.TaskGroup() as group:
                    group.create_task(
                        self._step(
                            "idp", self.idp.process, partial(ready.answers, self.idp.discovery_url), ""
                        )
                    )
                    group.create_task(self._wait_plugins(ready))
                    group.create_task(self._wait_exporters(ready))
                    group.create_task(self._wait_scrape())
                    group.create_task(self._wait_nufi(ready))
            except ExceptionGroup as failures:
                raise _first(failures) from None
        return self.state()

    def _start_server(self, key: str, server: AlertmanagerServer | PrometheusServer) -> None:
        self.progress.running(key)
        # Blocks for up to a second; the other programs boot meanwhile in their own processes.
        try:
            server.start()
        except ProcessNotReadyError as exc:
            self.progress.failed(key)
            raise SandboxError(str(exc)) from None
        self._servers.append(server.process)
        self._record()
        self.progress.done(key, f"at {server.url}")

    def _start_node_agents(self) -> None:
        sockets = self.cluster.state()["nodes"]
        logs = self.layout.logs
        self.progress.running("plugins")
        kube = (self.cluster.url, self.cluster.token, self.cluster.headers)
        self.node_programs = start_node_programs(self.options.nodes, sockets, kube, logs)
        self.progress.running("exporters")
        for node in self.options.nodes:
            socket = Path(sockets[node.name]["pod_resources_socket"])
            port = self.exporter_ports[node.name]
            token = self.exporter_control_token
            exporter = components.exporter(node, port, socket, logs, control_token=token)
            self.exporters.append(exporter.start())
        self.progress.running("scrape")

    def _start_nufi(self) -> None:
        self.progress.running("nufi")
        self.nufi = components.nufi_server(
            port=self.options.port,
            kubeconfig=self.cluster.kubeconfig,
            prometheus_url=self.prometheus.url,
            alertmanager_url=self.alertmanager.url,
            alert_rules_dir=self.layout.alert_rules_dir,
            database=self.layout.database,
            oidc_issuer=self.idp.issuer,
            scrape_interval_seconds=SCRAPE_INTERVAL_SECONDS,
            log_dir=self.layout.logs,
            dashboard_session_secret=self.layout.dashboard_session_secret(),
        ).start()

    async def _wait_nufi(self, ready: Readiness) -> None:
        assert self.nufi is not None
        await self._step("nufi", self.nufi, partial(ready.answers, f"{self.nufi_url}/readyz"), self.nufi_url)

    async def _wait_plugins(self, ready: Readiness) -> None:
        for program in self.node_programs:
            check = program.ready(ready, self.cluster.url, self.cluster.headers)
            await self._wait(program.process, check, program.ready_text)
        kinds = sorted(
            {
                f"{p.node.devices} {'LPUs by DRA' if p.dra else p.node.resource_key}"
                for p in self.node_programs
            }
        )
        self.progress.done("plugins", f"{', '.join(kinds)} per node")

    async def _wait_exporters(self, ready: Readiness) -> None:
        for node, exporter in zip(self.options.nodes, self.exporters, strict=True):
            url = f"http://127.0.0.1:{self.exporter_ports[node.name]}/healthz"
            await self._wait(exporter, partial(ready.answers, url), "answering /healthz")
        self.progress.done("exporters", f"{len(self.exporters)} nodes")

    async def _wait_scrape(self) -> None:
        expected = len(self.options.nodes)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            with contextlib.suppress(httpx.HTTPError, PrometheusQueryError):
                if await Readiness.every_target_scraped(self.prometheus, expected):
                    break
            if not pid_alive(self.prometheus.pid):
                raise SandboxError(f"Prometheus exited; see {self.prometheus.log_path}")
            if time.monotonic() >= deadline:
                raise SandboxError(
                    f"Prometheus did not scrape all {expected} exporters within {STARTUP_TIMEOUT:g} s; "
                    f"see {self.prometheus.url}/targets and the exporter logs in {self.layout.logs}"
                )
            await asyncio.sleep(0.25)
        self.progress.done("scrape", f"{expected} targets every {SCRAPE_INTERVAL_SECONDS} s")

    async def _step(
        self, key: str, process: ManagedProcess, check: Callable[[], Awaitable[bool]], detail: str
    ) -> None:
        try:
            await self._wait(process, check, "ready")
        except SandboxError:
            self.progress.failed(key)
            raise
        self.progress.done(key, detail)

    async def _wait(self, process: ManagedProcess, check: Callable[[], Awaitable[bool]], what: str) -> None:
        try:
            await process.wait_ready_async(check, timeout=STARTUP_TIMEOUT, what=what)
        except ProcessNotReadyError as exc:
            raise SandboxError(str(exc)) from None

    async def registered_lpu(self) -> str | None:
        """The id under which NuFi knows the LPU when an earlier run registered it, else None."""
        return await registered_lpu(self.nufi_url, self.idp.token_url)

    def state(self) -> SandboxState:
        bases = {node.name: exporter_base_url(self.exporter_ports[node.name]) for node in self.options.nodes}
        return SandboxState(
            nufi_url=self.nufi_url,
            prometheus_url=self.prometheus.url,
            alertmanager_url=self.alertmanager.url,
            alert_rules_dir=self.layout.alert_rules_dir,
            kube_api_url=self.cluster.url,
            kubeconfig=self.cluster.kubeconfig,
            oidc_issuer=self.idp.issuer,
            token_url=self.idp.token_url,
            exporters={node: f"{base}/metrics" for node, base in bases.items()},
            exporter_base_urls=bases,
            kube_token=self.cluster.token,
            exporter_control_token=self.exporter_control_token,
        )

    # --- run ---------------------------------------------------------------------------------------

    async def watch(self) -> None:
        """Return never: restart each program that exits, or with `stop_on_failure` raise SandboxError
        naming the first one."""
        async with httpx.AsyncClient(timeout=2.0) as client:
            supervisor = Supervisor(
                self._supervised(Readiness(client)),
                stop_on_failure=self.options.stop_on_failure,
                announce=self._announce,
                record=self._record,
            )
            while True:
                await supervisor.look_after_all()
                await asyncio.sleep(_WATCH_INTERVAL)

    def _supervised(self, ready: Readiness) -> list[Supervised]:
        """Each started program with what restarts it and what says it answers again."""

        def answers(url: str) -> Callable[[], Awaitable[bool]]:
            return partial(ready.answers, url)

        units = [
            Supervised(self.cluster.process, answers(f"{self.cluster.url}/readyz")),
            Supervised(self.idp.process, answers(self.idp.discovery_url)),
            Supervised(self.alertmanager.process, answers(f"{self.alertmanager.url}/-/ready")),
            Supervised(self.prometheus.process, answers(f"{self.prometheus.url}/-/ready")),
        ]
        for program in self.node_programs:
            units.append(
                Supervised(program.process, program.ready(ready, self.cluster.url, self.cluster.headers))
            )
        for node, exporter in zip(self.options.nodes, self.exporters, strict=True):
            url = f"http://127.0.0.1:{self.exporter_ports[node.name]}/healthz"
            units.append(Supervised(exporter, answers(url)))
        if self.nufi is not None:
            # /healthz, not /readyz: NuFi is back when it serves, whatever its dependencies say.
            units.append(Supervised(self.nufi, answers(f"{self.nufi_url}/healthz")))
        return units

    def _processes(self) -> list[ManagedProcess]:
        started = [
            self.cluster.process,
            self.idp.process,
            *self._servers,
            *(program.process for program in self.node_programs),
            *self.exporters,
        ]
        if self.nufi is not None:
            started.append(self.nufi)
        return started

    def _record(self) -> None:
        """Write every running program to the state directory, for a later start to find."""
        running = [(p.name, p.pid) for p in self._processes() if p.is_running()]
        record_processes(self.layout.programs_file, running)

    # --- stop ----------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop every started program by PID, newest layer first. Safe to call more than once."""
        layers: list[Sequence[Callable[[], object]]] = [
            [self.nufi.stop] if self.nufi is not None else [],
            [p.stop for p in self.exporters],
            [p.process.stop for p in self.node_programs],
            [self.prometheus.stop],
            [self.alertmanager.stop, self.idp.stop],
            [self.cluster.stop],
        ]
        with ThreadPoolExecutor(max_workers=8) as pool:
            for layer in layers:
                # Within a layer nothing depends on anything else: stop its members side by side.
                for future in [pool.submit(stop) for stop in layer]:
                    future.result()


def _first(group: BaseExceptionGroup[Exception]) -> Exception:
    """The first failure of a concurrent start, which is the one worth showing."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def _metrics_server(
    layout: StateLayout, options: SandboxOptions, jobs: list[ScrapeJob], alertmanager: str
) -> PrometheusServer:
    """The engine NuFi reads, scraping every job; only Prometheus evaluates the alert rules."""
    if options.metrics == "victoriametrics":
        # Set as docs/install.md advises: no later than a scrape interval, so NuFi's data is fresh,
        # and a series that stops (or turns NaN) answers with its old value for two at most.
        return VictoriaMetricsServer(
            jobs=jobs,
            scrape_interval=f"{SCRAPE_INTERVAL_SECONDS}s",
            work_dir=layout.prometheus_dir,
            binary=options.victoria_metrics_binary,
            latency_offset_seconds=SCRAPE_INTERVAL_SECONDS,
            max_staleness_seconds=2 * SCRAPE_INTERVAL_SECONDS,
        )
    return PrometheusServer(
        jobs=jobs,
        scrape_interval=f"{SCRAPE_INTERVAL_SECONDS}s",
        work_dir=layout.prometheus_dir,
        binary=options.prometheus_binary,
        rule_files=[f"{layout.alert_rules_dir}/*.yml"],
        alertmanagers=[alertmanager],
    )


def _steps(options: SandboxOptions, metrics_name: str) -> dict[str, str]:
    """The start-up steps the progress display shows, in order."""
    return {
        "cluster": f"Kubernetes dev cluster ({len(options.nodes)} nodes)",
        "idp": "Identity provider (realm super-llm)",
        "alertmanager": "Alertmanager",
        "prometheus": metrics_name,
        "plugins": "Mock LPU device plugins and DRA driver",
        "exporters": f"Exporters ({', '.join(sorted({n.profile for n in options.nodes}))})",
        "scrape": f"{metrics_name} scraping the exporters",
        "nufi": "NuFi server",
    }
