"""install.sh, as `make setup` runs it: a complete install (its stamp) in the cache is found in an
instant, at the very path the sandbox looks; a machine without npm gets a message and exit code 2."""

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
