"""The sandbox's state directory: --fresh, what is kept, the lock, and short socket paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from nufi_sandbox.sandbox.errors import SandboxError
from nufi_sandbox.sandbox.layout import MAX_SOCKET_PATH, longest_socket_path, prepare
from nufi_sandbox.sandbox.topology import NODES

NAMES = [node.name for node in NODES]


def _used(root: Path) -> None:
    for name in ("nufi.db", "sandbox.json", "prometheus/data/chunk", "idp/state/key.pem", "logs/nufi.log"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")


def test_a_restart_keeps_the_database_and_keys_but_not_metrics(short_tmp: Path) -> None:
    root = short_tmp / "state"
    prepare(root, fresh=False, node_names=NAMES).release()
    _used(root)
    layout = prepare(root, fresh=False, node_names=NAMES)
    try:
        assert layout.database.exists() and (root / "idp/state/key.pem").exists()
        assert not (root / "prometheus/data").exists()
        assert not layout.state_file.exists()
    finally:
        layout.release()


def test_fresh_empties_the_directory(short_tmp: Path) -> None:
    root = short_tmp / "state"
    prepare(root, fresh=False, node_names=NAMES).release()
    _used(root)
    layout = prepare(root, fresh=True, node_names=NAMES)
    try:
        assert sorted(p.name for p in root.iterdir()) == [".lock", ".nufi-sandbox", "cluster"]
    finally:
        layout.release()


@pytest.mark.parametrize("fresh", [False, True])
def test_a_directory_with_other_content_is_never_used_or_emptied(short_tmp: Path, fresh: bool) -> None:
    (short_tmp / "notes.txt").write_text("keep me")
    with pytest.raises(SandboxError, match="not a sandbox state directory"):
        prepare(short_tmp, fresh=fresh, node_names=NAMES)
    assert (short_tmp / "notes.txt").read_text() == "keep me"


def test_only_one_sandbox_per_directory(short_tmp: Path) -> None:
    layout = prepare(short_tmp / "state", fresh=False, node_names=NAMES)
    try:
        with pytest.raises(SandboxError, match=r"another sandbox \(pid \d+\)"):
            prepare(short_tmp / "state", fresh=True, node_names=NAMES)
        assert layout.root.joinpath(".nufi-sandbox").exists()
    finally:
        layout.release()
    prepare(short_tmp / "state", fresh=False, node_names=NAMES).release()


def test_a_deep_state_directory_puts_the_sockets_under_tmp(short_tmp: Path) -> None:
    deep = short_tmp.joinpath(*["a-rather-long-directory-name"] * 4)
    layout = prepare(deep, fresh=False, node_names=NAMES)
    try:
        assert layout.cluster_dir_is_temporary
        assert not layout.cluster_dir.is_relative_to(deep)
        assert longest_socket_path(layout.cluster_dir, NAMES) <= MAX_SOCKET_PATH
        kept = layout.cluster_dir
    finally:
        layout.release()
    assert not kept.exists()


def test_a_short_state_directory_keeps_the_sockets_inside(short_tmp: Path) -> None:
    layout = prepare(short_tmp / "s", fresh=False, node_names=NAMES)
    try:
        assert not layout.cluster_dir_is_temporary
        assert layout.cluster_dir == (short_tmp / "s" / "cluster").resolve()
    finally:
        layout.release()


def test_a_state_directory_of_an_earlier_version_is_taken_over(short_tmp: Path) -> None:
    """No marker yet, but only what a sandbox writes: a dev cluster directory, logs, a database."""
    for name in ("cluster/nodes/x", "logs/nufi.log", "nufi.db"):
        (short_tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (short_tmp / name).write_text("x")
    layout = prepare(short_tmp, fresh=False, node_names=NAMES)
    try:
        assert layout.database.read_text() == "x"
        assert (short_tmp / ".nufi-sandbox").exists()
    finally:
        layout.release()


def test_the_state_directory_is_the_sandbox_users_alone(short_tmp: Path) -> None:
    root = short_tmp / "state"
    root.mkdir(mode=0o755)
    root.chmod(0o755)
    layout = prepare(root, fresh=False, node_names=NAMES)
    try:
        # The identity provider's signing key and the database lie here: nobody else may enter.
        assert root.stat().st_mode & 0o777 == 0o700
    finally:
        layout.release()
