"""Session-wide fixtures for the real Prometheus and PostgreSQL, the fixtures every area shares (the
integration world's per-test ones from `support.world_fixtures`, a database on each backend, a clean
environment), markers from the folders, and a guard against leaked processes.

A test's marker (`unit`, `integration`, `e2e`) is the folder it lives in, so `pytest -m unit` runs
exactly tests/unit; a test file anywhere else fails the collection.

Every process the suite starts must be stopped by PID before the session ends. The guard makes this
pytest process adopt orphaned descendants, so at the end any process still hanging below it is a leak:
it is killed, named in the summary, and the run fails.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from nufi_sandbox.postgres import PostgresServer
from nufi_sandbox.processes import become_subreaper, describe_pid, kill_tree, live_children
from nufi_sandbox.prometheus import PrometheusServer
from support.databases import BACKENDS, empty_database_url
from support.engines import ENGINES, metrics_engine, metrics_server
from support.env import clear_nufi_env
from support.hypothesis_profiles import register_profiles
from support.world_fixtures import foreign_project as foreign_project
from support.world_fixtures import idp as idp
from support.world_fixtures import kube as kube
from support.world_fixtures import nufi as nufi
from support.world_fixtures import project as project
from support.world_fixtures import shared_cluster as shared_cluster
from support.xdist_scheduling import AreaOrModuleScheduling

TESTS_DIR = Path(__file__).resolve().parent
# The folders under tests/ that hold tests, each also the name of the marker its tests get.
KINDS = ("unit", "integration", "e2e")

_LEAKS = pytest.StashKey[list[str]]()
# Each child process of this run, with the test after which it was first seen running.
_first_seen_after: dict[int, str] = {}


@pytest.fixture(scope="session")
def logs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where tests put the logs of the processes they start; kept after the run for post-mortems."""
    return tmp_path_factory.mktemp("logs")


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A fresh directory with a short path under /tmp: unix socket paths below it fit in 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="sbx-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--metrics-engine",
        choices=ENGINES,
        default="prometheus",
        help="the metrics engine tests scrape and query: Prometheus (default) or VictoriaMetrics "
        "(the session's server, and those tests start with support.engines.metrics_server)",
    )


@pytest.fixture(scope="session")
def prometheus(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PrometheusServer]:
    """One real metrics server for the whole run, with no scrape jobs: Prometheus, or VictoriaMetrics
    with `--metrics-engine victoriametrics` (it serves the same API and the same methods here).

    Tests call `prometheus.set_jobs([...])` with every job they need (it replaces the list) and wait
    with `wait_for_target` / `wait_for_series`: new targets take ~5 s to be scraped.
    """
    work = tmp_path_factory.mktemp(metrics_engine(request.config))
    server = metrics_server(request.config, work_dir=work).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One real PostgreSQL for the whole run; `sqlalchemy_url` / `dsn` point at its test database."""
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of the test's own: a test using it runs on each backend."""
    yield from empty_database_url(request, tmp_path)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No NUFI_* variable of the developer's (nor the in-cluster marker) reaches the test; modules
    that build settings from the environment use it for every test (`pytest.mark.usefixtures`)."""
    clear_nufi_env(monkeypatch)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_LEAKS] = []
    register_profiles()
    become_subreaper()
    # Apps built from default settings must not leave a database in the working tree.
    scratch = Path(tempfile.mkdtemp(prefix="nufi-tests-"))
    config.add_cleanup(lambda: shutil.rmtree(scratch, ignore_errors=True))
    os.environ.setdefault("NUFI_DATABASE_URL", f"sqlite+aiosqlite:///{scratch / 'nufi.db'}")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, called in the controller of `-n N`
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> AreaOrModuleScheduling | None:
    """`--dist loadfile` (as `make test` runs) keeps whole packages together where their fixtures
    are costly (`support.xdist_scheduling`); any other --dist is xdist's own."""
    if config.getoption("dist") != "loadfile":
        return None
    return AreaOrModuleScheduling(config, log)


def kind_of(path: Path) -> str | None:
    """The marker a test file at `path` gets from its folder; None if it is in none of `KINDS`."""
    try:
        folder = path.resolve().relative_to(TESTS_DIR).parts[0]
    except (ValueError, IndexError):
        return None
    return folder if folder in KINDS else None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    misplaced: set[Path] = set()
    for item in items:
        kind = kind_of(item.path)
        if kind is None:
            misplaced.add(item.path)
        else:
            item.add_marker(kind)
    if misplaced:
        names = "\n  ".join(sorted(str(path) for path in misplaced))
        raise pytest.UsageError(
            f"test files outside tests/{{{','.join(KINDS)}}}/ (a test's folder is its marker; "
            f"move them into one of those):\n  {names}"
        )


def pytest_runtest_logfinish(nodeid: str) -> None:
    running = set(live_children())
    for pid in set(_first_seen_after) - running:
        del _first_seen_after[pid]  # ended; its PID may come back as someone else
    for pid in running:
        _first_seen_after.setdefault(pid, nodeid)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # trylast: session fixtures are torn down by an earlier implementation of this hook.
    leaks = []
    for pid in live_children():
        test = _first_seen_after.get(pid)
        leaks.append(describe_pid(pid) + (f"  (first seen after {test})" if test else ""))
        kill_tree(pid)
    if leaks:
        session.config.stash[_LEAKS] = leaks
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    leaks = config.stash.get(_LEAKS, [])
    if leaks:
        terminalreporter.section("processes left running (killed now; the run fails)", sep="!", red=True)
        for line in leaks:
            terminalreporter.line(line, red=True)
