"""Before anything starts: NuFi's port, the Prometheus and Alertmanager binaries (installed with apt
as root), and the code-server VS Code labs run."""

from __future__ import annotations

import socket
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from nufi_sandbox.alertmanager import AlertmanagerServer
from nufi_sandbox.prometheus import PrometheusServer
from nufi_sandbox.sandbox import preflight
from nufi_sandbox.sandbox.errors import SandboxError


@pytest.fixture
def no_prometheus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Hide every Prometheus: the usual place becomes an empty temp path, PATH an empty directory."""
    where = tmp_path / "bin" / "prometheus"
    where.parent.mkdir()
    monkeypatch.setattr(PrometheusServer, "candidates", [str(where)])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return where


@pytest.fixture
def no_alertmanager(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Hide every Alertmanager, as `no_prometheus` hides Prometheus."""
    where = tmp_path / "am-bin" / "prometheus-alertmanager"
    where.parent.mkdir()
    monkeypatch.setattr(AlertmanagerServer, "candidates", [str(where)])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return where


def _executable(path: Path) -> None:
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_without_root_the_message_says_how_to_install(no_prometheus: Path) -> None:
    def apt(packages: Sequence[str]) -> None:
        raise AssertionError("apt must not run without root")

    with pytest.raises(SandboxError, match=r"sudo apt-get install prometheus.*--prometheus PATH"):
        preflight.ensure_prometheus(None, is_root=False, announce=lambda _: None, apt=apt)


def test_as_root_apt_installs_it(no_prometheus: Path) -> None:
    installed: list[list[str]] = []
    said: list[str] = []

    def apt(packages: Sequence[str]) -> None:
        installed.append(list(packages))
        _executable(no_prometheus)

    found = preflight.ensure_prometheus(None, is_root=True, announce=said.append, apt=apt)
    assert found == no_prometheus
    assert installed == [["prometheus"]]
    assert said and "apt-get" in said[0]


def test_a_missing_alertmanager_is_named_with_its_debian_package(no_alertmanager: Path) -> None:
    def apt(packages: Sequence[str]) -> None:
        raise AssertionError("apt must not run without root")

    with pytest.raises(
        SandboxError, match=r"Alertmanager is not installed.*sudo apt-get install prometheus-alertmanager"
    ):
        preflight.ensure_alertmanager(is_root=False, announce=lambda _: None, apt=apt)


def test_as_root_apt_installs_alertmanager(no_alertmanager: Path) -> None:
    installed: list[list[str]] = []

    def apt(packages: Sequence[str]) -> None:
        installed.append(list(packages))
        _executable(no_alertmanager)

    assert preflight.ensure_alertmanager(is_root=True, announce=lambda _: None, apt=apt) == no_alertmanager
    assert installed == [["prometheus-alertmanager"]]


def test_as_root_an_install_without_a_binary_is_an_error(no_prometheus: Path) -> None:
    with pytest.raises(SandboxError, match="no prometheus binary was found"):
        preflight.ensure_prometheus(None, is_root=True, announce=lambda _: None, apt=lambda _: None)


def test_apt_failures_are_reported_with_its_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "apt-get"
    fake.write_text("#!/bin/sh\necho 'E: Unable to locate package prometheus' >&2\nexit 100\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxError, match=r"(?s)exit 100.*Unable to locate package prometheus"):
        preflight.run_apt(["prometheus"])


def test_an_explicit_binary_is_used_as_given(no_prometheus: Path, tmp_path: Path) -> None:
    mine = tmp_path / "my-prometheus"
    with pytest.raises(SandboxError, match="not an executable file"):
        preflight.ensure_prometheus(mine, is_root=True, announce=lambda _: None, apt=lambda _: None)
    _executable(mine)
    assert preflight.ensure_prometheus(mine, is_root=False, announce=lambda _: None) == mine


def test_a_listening_port_is_refused_with_the_option_to_change_it() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SandboxError, match=rf"port {port} on 127\.0\.0\.1 is already in use.*--port"):
            preflight.check_port_free(port)
    preflight.check_port_free(port)  # free again once closed


def test_without_code_server_the_sandbox_does_not_start_and_names_make_setup(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("NUFI_CODE_SERVER", raising=False)
    monkeypatch.setenv("NUFI_CODE_SERVER_CACHE", str(tmp_path))
    with pytest.raises(SandboxError, match="run `make setup`"):
        preflight.ensure_code_server(is_root=False)
    program = tmp_path / "code-server"
    _executable(program)
    monkeypatch.setenv("NUFI_CODE_SERVER", str(program))
    assert preflight.ensure_code_server(is_root=False) == program
