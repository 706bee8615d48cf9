"""Ports picked before the programs that bind them start are never handed out twice, even when the
kernel gives a just-closed port again."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from nufi_sandbox import processes

pytestmark = pytest.mark.unit


def test_a_port_the_kernel_gives_again_is_not_handed_out_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    given = iter([40001, 40001, 40001, 40002])

    class Recycling(socket.socket):
        def getsockname(self) -> Any:
            return ("127.0.0.1", next(given))

    monkeypatch.setattr(processes, "_handed_out", set())
    monkeypatch.setattr(socket, "socket", Recycling)
    assert [processes.free_port(), processes.free_port()] == [40001, 40002]


def test_ports_handed_out_together_are_distinct() -> None:
    ports = [processes.free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
