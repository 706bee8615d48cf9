"""What the lab wrappers make of NB_PREFIX, $PORT and a manifest's args."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.runtime.jupyter import jupyter_argv, jupyter_env
from nufi_sandbox.runtime.prefix import base_url, port


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        (None, "/"),
        ("", "/"),
        ("/notebook/team-a/lab", "/notebook/team-a/lab/"),
        ("/labs/p/n/", "/labs/p/n/"),
        ("labs//p", "/labs/p/"),
    ],
)
def test_nb_prefix_becomes_a_base_url(prefix: str | None, expected: str) -> None:
    assert base_url({} if prefix is None else {"NB_PREFIX": prefix}) == expected


@given(st.lists(st.text(st.characters(blacklist_characters="/"), min_size=1, max_size=8), max_size=5))
def test_a_base_url_has_one_slash_around_each_part(parts: list[str]) -> None:
    url = base_url({"NB_PREFIX": "//".join(parts)})
    assert url.startswith("/") and url.endswith("/") and "//" not in url
    assert [p for p in url.split("/") if p] == parts


def test_port_from_the_environment_wins_over_a_manifest() -> None:
    assert port({"PORT": "4321"}, 8888) == 4321
    assert port({}, 9000) == 9000
    assert port({}) == 8888
    with pytest.raises(ValueError, match="PORT=70000"):
        port({"PORT": "70000"})


def test_jupyter_listens_where_told_and_keeps_a_manifest_from_moving_it(tmp_path: Path) -> None:
    extra = ["start-notebook.py", "--ServerApp.port=1", "--ip=0.0.0.0", "--ServerApp.terminals_enabled=False"]
    argv = jupyter_argv(
        port=5000, env={"NB_PREFIX": "/labs/a/b"}, root_dir=tmp_path, allow_origin=None, extra=extra
    )
    assert argv[1:3] == ["-m", "jupyterlab"]
    assert "--ServerApp.ip=127.0.0.1" in argv and "--ServerApp.port=5000" in argv
    assert "--ServerApp.base_url=/labs/a/b/" in argv
    assert f"--ServerApp.root_dir={tmp_path}" in argv
    assert "--IdentityProvider.token=" in argv
    assert argv[-1] == "--ServerApp.terminals_enabled=False"
    assert not {"start-notebook.py", "--ServerApp.port=1", "--ip=0.0.0.0"} & set(argv)
    assert not any(a.startswith("--ServerApp.allow_origin") for a in argv)


def test_a_public_origin_is_accepted_as_origin_and_as_host(tmp_path: Path) -> None:
    argv = jupyter_argv(port=1, env={}, root_dir=tmp_path, allow_origin="https://nufi.example.com")
    assert "--ServerApp.allow_origin=https://nufi.example.com" in argv
    assert "--ServerApp.local_hostnames=nufi.example.com" in argv
    assert "--ServerApp.local_hostnames=localhost" in argv


def test_jupyter_keeps_its_directories_in_the_work_dir_unless_told_otherwise(tmp_path: Path) -> None:
    env = jupyter_env({"JUPYTER_CONFIG_DIR": "/mine", "LPU_VISIBLE_DEVICES": "lpu0"}, tmp_path)
    assert env["JUPYTER_CONFIG_DIR"] == "/mine"
    assert env["JUPYTER_RUNTIME_DIR"] == str(tmp_path / ".jupyter" / "runtime")
    assert env["LPU_VISIBLE_DEVICES"] == "lpu0"
