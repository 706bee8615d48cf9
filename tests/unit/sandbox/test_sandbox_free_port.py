"""Ports picked before the programs that bind them start: below the kernel's ephemeral range (which
outgoing connections draw from), never handed out twice, and never one another live process reserved."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nufi_sandbox import ports

pytestmark = pytest.mark.unit

HOLD = """
import fcntl, os, sys
descriptor = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o644)
fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def own_reservations(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(ports, "_reserved", {})
    monkeypatch.setattr(ports, "reservations_dir", lambda: tmp_path)
    return tmp_path


def _bindable_pair() -> int:
    """A port P such that P and P + 1 are free now."""
    for _ in range(100):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        try:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise AssertionError("no two adjacent free ports")


def test_ports_come_from_below_the_ephemeral_range_and_are_distinct() -> None:
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    handed = [ports.free_port() for _ in range(50)]
    assert len(set(handed)) == len(handed)
    assert all(10000 <= port < low for port in handed), (low, handed)
    for port in handed:  # free: nothing listens there
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_a_port_another_live_process_reserved_is_not_handed_out_until_it_ends(
    own_reservations: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _bindable_pair()
    monkeypatch.setattr(ports, "candidate_ports", lambda: range(first, first + 2))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(own_reservations / str(first))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert ports.free_port() == first + 1
        # This process holds the other one: none is left.
        with pytest.raises(RuntimeError, match=f"{first}-{first + 1}"):
            ports.free_port()
    finally:
        holder.communicate("")
    # The holder ended: the kernel released its lock.
    assert ports.free_port() == first


def test_a_port_something_listens_on_is_not_handed_out(
    own_reservations: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _bindable_pair()
    monkeypatch.setattr(ports, "candidate_ports", lambda: range(first, first + 2))
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", first))
        listening.listen()
        assert ports.free_port() == first + 1
        with pytest.raises(RuntimeError):
            ports.free_port()


@pytest.mark.parametrize(
    ("ephemeral", "expected"),
    [("32768\t60999\n", range(10000, 32768)), ("12000 65000\n", range(0)), ("garbage", range(10000, 32768))],
)
def test_the_candidates_follow_the_kernels_ephemeral_range(
    ephemeral: str, expected: range, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    setting = tmp_path / "ip_local_port_range"
    setting.write_text(ephemeral)
    monkeypatch.setattr(ports, "_EPHEMERAL_RANGE", setting)
    assert ports.candidate_ports() == expected


def test_with_no_room_below_the_ephemeral_range_the_kernel_picks_and_never_twice(
    own_reservations: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = iter([40001, 40001, 40001, 40002])

    class Recycling(socket.socket):
        def getsockname(self) -> Any:
            return ("127.0.0.1", next(given))

    monkeypatch.setattr(ports, "candidate_ports", lambda: range(0))
    monkeypatch.setattr(socket, "socket", Recycling)
    assert [ports.free_port(), ports.free_port()] == [40001, 40002]
