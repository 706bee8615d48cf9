"""Ports for the programs the sandbox and the tests start, picked before those programs bind them.

Between the pick and the program's bind, another process may take the port. Two kinds of takers are
ruled out here:
- outgoing connections and `bind(("", 0))`, which draw from the kernel's ephemeral range: ports are
  picked below it;
- other processes picking ports the same way (two test workers, each with its sandbox): each port is
  reserved with a lock file for as long as the process that picked it lives. The kernel releases
  the lock when that process ends, however it ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import socket
import tempfile
from pathlib import Path

# Below this are the ports servers are configured with by hand (8080, 9090, 5432…), the sandbox's
# own NuFi among them. With fewer than _ENOUGH left below the ephemeral range, the kernel picks.
_LOWEST = 10000
_ENOUGH = 2048
_TRIES = 1000
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")

# Port -> the descriptor of its lock file, open for the life of this process (-1: a port the kernel
# picked, which has no lock file).
_reserved: dict[int, int] = {}
# Not the `random` module's generator: test runners seed it alike in every worker.
_choose = random.SystemRandom().choice


def reservations_dir() -> Path:
    return Path(tempfile.gettempdir()) / "nufi-ports"


def candidate_ports() -> range:
    """The ports picked from: below the ephemeral range, or empty when too few are there."""
    try:
        low = int(_EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768  # Linux's default
    return range(_LOWEST, low) if low - _LOWEST >= _ENOUGH else range(0)


def free_port() -> int:
    """A TCP port on 127.0.0.1, free now and not handed out by any live process that uses this."""
    candidates = candidate_ports()
    if not candidates:
        return _kernel_port()
    directory = reservations_dir()
    if not directory.is_dir():
        directory.mkdir(exist_ok=True)
        with contextlib.suppress(OSError):  # shared by every user's runs, like /tmp itself
            directory.chmod(0o1777)
    for _ in range(_TRIES):
        port = _choose(candidates)
        if port in _reserved:
            continue
        descriptor = _reserve(directory / str(port))
        if descriptor is None:
            continue
        if _bindable(port):
            _reserved[port] = descriptor
            return port
        os.close(descriptor)
    raise RuntimeError(f"no free port among {candidates.start}-{candidates.stop - 1} after {_TRIES} tries")


def _reserve(path: Path) -> int | None:
    """The descriptor holding `path`'s lock, or None while another process holds it."""
    descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    return descriptor


def _bindable(port: int) -> bool:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _kernel_port() -> int:
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        # The kernel may give a just-closed port again; never hand one out twice.
        if port not in _reserved:
            _reserved[port] = -1
            return port
