"""The test harness itself: process control, a real Prometheus scraping a real exporter, a real PostgreSQL."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry, Gauge

from nufi_sandbox.pids import kill_group
from nufi_sandbox.postgres import PostgresServer, stop_orphaned_servers
from nufi_sandbox.processes import (
    ManagedProcess,
    MissingBinaryError,
    ProcessNotReadyError,
    free_port,
    kill_tree,
    live_children,
    pid_alive,
    require_binary,
    wait_gone,
)
from nufi_sandbox.prometheus import PrometheusConfigError, PrometheusQueryError, PrometheusServer, ScrapeJob
from support.exporter import serving_registry

# Labels as the DCGM exporter writes them for a GPU held by a workload pod (interop-facts §2.3, §6.4).
WORKLOAD_LABELS = {"gpu": "0", "Hostname": "node-a", "pod": "trainer-0", "namespace": "team-a"}
# Labels a ServiceMonitor puts on the exporter's own target.
EXPORTER_TARGET_LABELS = {"pod": "dcgm-exporter-x7k2p", "namespace": "gpu-operator"}


@pytest.fixture(scope="module")
def exporter() -> Iterator[str]:
    """A prometheus-client exporter on 127.0.0.1 with one gauge; yields its scrape target."""
    registry = CollectorRegistry()
    gauge = Gauge("nufi_harness_temperature_celsius", "Probe gauge", list(WORKLOAD_LABELS), registry=registry)
    gauge.labels(**WORKLOAD_LABELS).set(42)
    with serving_registry(registry) as target:
        yield target


@pytest.fixture(scope="module")
def scraping(prometheus: PrometheusServer, exporter: str) -> Iterator[list[ScrapeJob]]:
    """The exporter scraped three ways: plain, as a ServiceMonitor would (honor_labels false), honoured."""
    jobs = [
        ScrapeJob("plain", [exporter]),
        ScrapeJob("service-monitor", [exporter], labels=EXPORTER_TARGET_LABELS),
        ScrapeJob("honoured", [exporter], honor_labels=True, labels=EXPORTER_TARGET_LABELS),
    ]
    prometheus.set_jobs(jobs)
    try:
        yield jobs
    finally:
        prometheus.set_jobs([])


# --- Prometheus -------------------------------------------------------------------------------------


async def test_set_jobs_reloads_and_the_new_target_is_scraped(
    prometheus: PrometheusServer, exporter: str
) -> None:
    before = await prometheus.targets()
    assert all(t["labels"]["job"] != "added-by-reload" for t in before)

    prometheus.set_jobs([*prometheus.jobs, ScrapeJob("added-by-reload", [exporter])])

    target = await prometheus.wait_for_target("added-by-reload", health="up", timeout=30)
    assert target["scrapeUrl"] == f"http://{exporter}/metrics"
    assert target["lastError"] == ""
    assert "added-by-reload" in prometheus.config_path.read_text()


async def test_query_returns_the_exported_metric_with_its_labels(
    prometheus: PrometheusServer, scraping: list[ScrapeJob], exporter: str
) -> None:
    result = await prometheus.wait_for_series('nufi_harness_temperature_celsius{job="plain"}', timeout=30)

    assert len(result) == 1
    metric = result[0]["metric"]
    assert metric == {
        "__name__": "nufi_harness_temperature_celsius",
        "job": "plain",
        "instance": exporter,
        **WORKLOAD_LABELS,
    }
    assert result[0]["value"][1] == "42"


async def test_honor_labels_false_renames_the_workload_pod_to_exported_pod(
    prometheus: PrometheusServer, scraping: list[ScrapeJob]
) -> None:
    renamed = await prometheus.wait_for_series(
        'nufi_harness_temperature_celsius{job="service-monitor"}', timeout=30
    )
    honoured = await prometheus.wait_for_series(
        'nufi_harness_temperature_celsius{job="honoured"}', timeout=30
    )

    # The target's labels win and the exporter's are kept under exported_*: the DCGM situation.
    assert renamed[0]["metric"]["pod"] == "dcgm-exporter-x7k2p"
    assert renamed[0]["metric"]["exported_pod"] == "trainer-0"
    assert renamed[0]["metric"]["namespace"] == "gpu-operator"
    assert renamed[0]["metric"]["exported_namespace"] == "team-a"
    assert honoured[0]["metric"]["pod"] == "trainer-0"
    assert honoured[0]["metric"]["namespace"] == "team-a"
    assert "exported_pod" not in honoured[0]["metric"]


async def test_a_refused_config_keeps_the_previous_jobs(
    prometheus: PrometheusServer, scraping: list[ScrapeJob], exporter: str
) -> None:
    config_before = prometheus.config_path.read_text()

    with pytest.raises(PrometheusConfigError, match="bad-label"):
        prometheus.set_jobs([ScrapeJob("broken", [exporter], labels={"bad-label": "x"})])

    assert prometheus.config_path.read_text() == config_before
    assert [job.name for job in prometheus.jobs] == [job.name for job in scraping]
    await prometheus.wait_for_target("plain", health="up", timeout=30)


async def test_a_malformed_query_fails_at_once_instead_of_polling(prometheus: PrometheusServer) -> None:
    started = time.monotonic()
    with pytest.raises(PrometheusQueryError, match="sum\\("):
        await prometheus.wait_for_series("sum(", timeout=30)
    assert time.monotonic() - started < 5


def test_prometheus_listens_on_loopback_with_its_own_data_dir(prometheus: PrometheusServer) -> None:
    assert prometheus.url.startswith("http://127.0.0.1:")
    assert httpx.get(f"{prometheus.url}/-/ready", timeout=5).status_code == 200
    assert (prometheus.config_path.parent / "data").is_dir()
    assert pid_alive(prometheus.pid)


def test_a_stopped_prometheus_is_gone(tmp_path: Path) -> None:
    server = PrometheusServer(work_dir=tmp_path).start()
    try:
        pid, url = server.pid, server.url
    finally:
        server.stop()
    assert not pid_alive(pid)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/-/ready", timeout=2)


# --- PostgreSQL -------------------------------------------------------------------------------------


def test_postgres_accepts_connections_and_queries(postgres: PostgresServer) -> None:
    postgres.psql("CREATE TABLE IF NOT EXISTS harness_probe (id int PRIMARY KEY, name text)")
    postgres.psql("INSERT INTO harness_probe VALUES (1, 'lpu') ON CONFLICT DO NOTHING")

    psql = shutil.which("psql") or str(postgres.bin_dir / "psql")
    query = "SELECT current_user, current_database(), name FROM harness_probe"
    completed = subprocess.run(
        [psql, "-X", "-A", "-t", "-d", postgres.dsn, "-c", query],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert completed.stdout.strip() == "nufi|nufi_test|lpu"
    assert postgres.psql("SHOW listen_addresses").strip() == "127.0.0.1"
    assert postgres.sqlalchemy_url == f"postgresql+asyncpg://nufi@127.0.0.1:{postgres.port}/nufi_test"


def test_postgres_stop_leaves_no_process_and_no_files() -> None:
    server = PostgresServer(database="nufi_stop_check").start()
    try:
        postmaster = server.pid
        backends = live_children(postmaster)
        root = server.root_dir
        assert server.psql("SELECT 1").strip() == "1"
        assert backends, "a running postmaster has helper processes (checkpointer, walwriter, ...)"
    finally:
        server.stop()

    assert not pid_alive(postmaster)
    assert [pid for pid in backends if pid_alive(pid)] == []
    assert not root.exists()
    server.stop()  # a second stop is harmless


def test_a_server_whose_starter_was_killed_is_stopped_by_the_next_start() -> None:
    # pg_ctl detaches the postmaster: a test run killed half-way would leave it running for ever.
    starter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from nufi_sandbox.postgres import PostgresServer\n"
            "import time\n"
            "server = PostgresServer(database='nufi_orphan').start()\n"
            "print(server.pid, server.root_dir, flush=True)\n"
            "time.sleep(300)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert starter.stdout is not None
        pid_text, root_text = starter.stdout.readline().split()
    finally:
        starter.kill()
        starter.wait(timeout=10)
    postmaster, root = int(pid_text), Path(root_text)
    try:
        assert pid_alive(postmaster), "the killed starter's server runs on"
        assert root in stop_orphaned_servers()
        assert wait_gone(postmaster, timeout=10)
        assert not root.exists()
    finally:
        if pid_alive(postmaster):
            kill_group(postmaster)


def test_a_running_servers_starter_keeps_it() -> None:
    server = PostgresServer(database="nufi_kept").start()
    try:
        assert server.root_dir not in stop_orphaned_servers()
        assert server.psql("SELECT 1").strip() == "1"
    finally:
        server.stop()


# --- process control ---------------------------------------------------------------------------------


def test_stop_kills_a_process_group_that_ignores_sigterm(logs_dir: Path) -> None:
    script = (
        "import signal, subprocess, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen(['sleep', '60'])\n"  # inherits the ignored SIGTERM
        "print('child', child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = ManagedProcess("stubborn", [sys.executable, "-c", script], log_dir=logs_dir).start()
    try:
        proc.wait_ready(lambda: "child" in proc.log_tail(), timeout=10, what="spawning its child")
        child = int(proc.log_tail().split()[-1])
        started = time.monotonic()
        code = proc.stop(grace=0.5)
        elapsed = time.monotonic() - started
    finally:
        proc.stop(grace=0)

    assert code == -signal.SIGKILL
    assert elapsed >= 0.5
    assert not pid_alive(proc.pid)
    assert not pid_alive(child)
    assert proc.stop() == code


def test_stop_lets_a_cooperative_process_exit_on_sigterm(logs_dir: Path) -> None:
    proc = ManagedProcess("polite", ["sleep", "60"], log_dir=logs_dir).start()
    started = time.monotonic()
    code = proc.stop(grace=10)
    assert code == -signal.SIGTERM
    assert time.monotonic() - started < 5


def test_wait_ready_reports_an_early_exit_with_the_log_tail(logs_dir: Path) -> None:
    script = "import sys; print('fatal: cannot read /etc/nufi/config.yml'); sys.exit(3)"
    proc = ManagedProcess("doomed", [sys.executable, "-c", script], log_dir=logs_dir).start()
    started = time.monotonic()
    try:
        with pytest.raises(ProcessNotReadyError) as info:
            proc.wait_ready(lambda: False, timeout=30, what="serving")
    finally:
        proc.stop()

    assert time.monotonic() - started < 10
    assert info.value.returncode == 3
    message = str(info.value)
    assert "doomed exited with code 3 before it was serving" in message
    assert "fatal: cannot read /etc/nufi/config.yml" in message
    assert str(proc.log_path) in message


async def test_wait_ready_async_times_out_naming_the_last_check_error(logs_dir: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}/healthz"

    async def answers() -> bool:
        async with httpx.AsyncClient(timeout=1) as client:
            return (await client.get(closed)).status_code == 200

    proc = ManagedProcess("silent", ["sleep", "60"], log_dir=logs_dir).start()
    try:
        with pytest.raises(
            ProcessNotReadyError, match=r"silent \(pid \d+\) was not answering within 0.5s"
        ) as info:
            await proc.wait_ready_async(answers, timeout=0.5, what="answering")
    finally:
        await proc.stop_async()
    assert "ConnectError" in str(info.value)
    assert info.value.returncode is None


async def test_wait_ready_async_returns_once_the_check_passes(logs_dir: Path) -> None:
    script = "import time; time.sleep(0.3); print('listening', flush=True); time.sleep(60)"
    proc = ManagedProcess("slow-starter", [sys.executable, "-c", script], log_dir=logs_dir).start()
    try:
        await proc.wait_ready_async(lambda: "listening" in proc.log_tail(), timeout=10)
        assert proc.is_running()
    finally:
        await proc.stop_async()
    assert not proc.is_running()


def test_sync_wait_ready_also_drives_an_async_check(logs_dir: Path) -> None:
    script = "import time; time.sleep(0.3); print('listening', flush=True); time.sleep(60)"
    proc = ManagedProcess("sync-caller", [sys.executable, "-c", script], log_dir=logs_dir).start()

    async def listening() -> bool:
        return "listening" in proc.log_tail()

    try:
        proc.wait_ready(listening, timeout=10)
        assert "listening" in proc.log_tail()
    finally:
        proc.stop()


def test_missing_binary_names_make_setup_and_the_package(tmp_path: Path) -> None:
    with pytest.raises(MissingBinaryError) as info:
        require_binary("nufi-no-such-tool", [tmp_path / "nufi-no-such-tool"], "nufi-tools")
    message = str(info.value)
    assert message.startswith("nufi-no-such-tool not found (looked in ")
    assert str(tmp_path / "nufi-no-such-tool") in message
    assert "Run `make setup` as root, or `apt-get install nufi-tools`." in message


def test_require_binary_skips_files_that_are_not_executable(tmp_path: Path) -> None:
    plain, runnable = tmp_path / "plain", tmp_path / "runnable"
    plain.write_text("")
    runnable.write_text("#!/bin/sh\n")
    runnable.chmod(0o755)
    assert require_binary("nufi-no-such-tool", [plain, runnable], "nufi-tools") == runnable


def test_orphaned_grandchildren_are_adopted_so_leaks_are_visible() -> None:
    # The shell exits at once, leaving its background sleep orphaned, as a daemon would be.
    completed = subprocess.run(
        ["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True, check=True
    )
    orphan = int(completed.stdout)
    try:
        assert orphan in live_children()
    finally:
        kill_tree(orphan)
    assert orphan not in live_children()
