"""install.sh, as `make setup` runs it: a complete install (its stamp) in the cache is found in an
instant, at the very path the sandbox looks; a half one is removed and redone; a machine without npm,
or without the registry, gets a message saying what to do and an exit code of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from nufi_sandbox import code_server

SCRIPT = Path(code_server.__file__).parent / "install.sh"


def run_install(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_a_second_setup_finds_the_install_where_the_sandbox_looks(tmp_path: Path) -> None:
    env = {**os.environ, "NUFI_CODE_SERVER_CACHE": str(tmp_path)}
    home = code_server.install_dir(env)
    home.mkdir(parents=True)
    (home / code_server.STAMP).touch()
    done = run_install(env)
    assert done.returncode == 0, done.stderr
    assert f"is installed in {home}" in done.stdout
    # Nothing was fetched or built: the directory holds only what the test put there.
    assert [path.name for path in home.iterdir()] == [code_server.STAMP]


def test_without_npm_the_message_says_what_to_do(tmp_path: Path) -> None:
    # A PATH with the shell's tools the script needs, and neither npm nor apt-get.
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "python3").symlink_to(sys.executable)
    for name in ("sha256sum", "cut", "dirname", "id", "uname", "tail", "mkdir"):
        found = shutil.which(name)
        assert found is not None
        (tools / name).symlink_to(found)
    env = {"PATH": str(tools), "HOME": str(tmp_path), "NUFI_CODE_SERVER_CACHE": str(tmp_path / "cache")}
    done = run_install(env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "npm is not installed" in done.stderr and "make setup" in done.stderr
    assert not (tmp_path / "cache").exists()


def test_a_half_install_is_removed_and_an_unreachable_registry_named(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "NUFI_CODE_SERVER_CACHE": str(tmp_path / "cache"),
        # Nothing answers there, and npm's own cache is empty: the packages cannot be fetched.
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_cache": str(tmp_path / "npm"),
        "npm_config_fetch_retries": "0",
    }
    half = code_server.install_dir(env)
    half.mkdir(parents=True)
    (half / "left-by-an-interrupted-install").touch()
    done = run_install(env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "could not fetch the pinned packages from http://127.0.0.1:9/" in done.stderr
    assert "make setup" in done.stderr
    assert not (half / "left-by-an-interrupted-install").exists()
    assert not (half / code_server.STAMP).exists()
