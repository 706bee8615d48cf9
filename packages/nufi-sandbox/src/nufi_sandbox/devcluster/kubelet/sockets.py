"""Unix socket files and the gRPC servers behind them."""

from __future__ import annotations

import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import grpc

from nufi_mock.kubelet_api import CHECKPOINT_FILE_NAME


class AioServer(Protocol):
    """The part of ``grpc.aio.Server`` used here."""

    async def stop(self, grace: float | None) -> Any: ...


def is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(path.lstat().st_mode)
    except FileNotFoundError:
        return False


def unix_target(path: Path) -> str:
    """gRPC address of a unix socket; relative paths would be read as an authority, so make it absolute."""
    return f"unix://{path.absolute()}"


def remove_socket_file(path: Path) -> None:
    path.unlink(missing_ok=True)


def remove_plugin_sockets(directory: Path, *, keep: Iterable[Path] = ()) -> list[Path]:
    """What a starting kubelet does to the device plugin dir: delete every socket file in it, so that
    plugins notice and register again. The checkpoint file and anything that is not a socket stay."""
    kept = {path.resolve() for path in keep}
    removed: list[Path] = []
    for entry in sorted(directory.iterdir()):
        if entry.name == CHECKPOINT_FILE_NAME or entry.resolve() in kept or not is_socket(entry):
            continue
        entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


async def serve_unix(socket_path: Path, add_services: Iterable[Callable[[Any], None]]) -> AioServer:
    """Start a grpc.aio server in the running loop on ``socket_path``, replacing a stale socket file."""
    remove_socket_file(socket_path)
    server = grpc.aio.server()
    for add in add_services:
        add(server)
    server.add_insecure_port(unix_target(socket_path))
    await server.start()
    started: AioServer = server
    return started


async def stop_server(server: AioServer | None, socket_path: Path) -> None:
    if server is not None:
        await server.stop(None)
    remove_socket_file(socket_path)
