"""The kubelet's plugin watcher: registration sockets appearing in ``plugins_registry`` are asked who
they are (``GetInfo``), handed to the handler of their type, and told the outcome
(``NotifyRegistrationStatus``); a socket that goes away deregisters its plugin. Only DRA plugins have a
handler here (device plugins register through ``kubelet.sock``; CSI is not simulated)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import structlog

from nufi_mock.kubelet_api import pluginregistration_v1_pb2, pluginregistration_v1_pb2_grpc

from .gotext import go_status_text
from .model import RegistrationError
from .sockets import is_socket, unix_target

_reg = pluginregistration_v1_pb2
_log = structlog.get_logger(__name__)

Register = Callable[[Any, Path], Awaitable[None]]
"""(PluginInfo, registration socket); raises RegistrationError to refuse."""
Deregister = Callable[[Any], Awaitable[None]]

_INFO_TIMEOUT_SECONDS = 10.0


class PluginWatcher:
    def __init__(
        self,
        registry: Path,
        handlers: dict[str, tuple[Register, Deregister]],
        *,
        interval: float = 0.1,
    ) -> None:
        self.registry = registry.absolute()
        self._handlers = handlers
        self._interval = interval
        self._registered: dict[Path, tuple[int, Any]] = {}
        """Socket -> (its inode when registered, the PluginInfo it gave)."""
        self._refused: dict[Path, int] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.registry.mkdir(parents=True, exist_ok=True)
        self._task = asyncio.create_task(self._watch(), name=f"plugin watcher {self.registry}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for _, info in list(self._registered.values()):
            await self._deregister(info)
        self._registered.clear()

    async def _watch(self) -> None:
        while True:
            try:
                await self.scan()
            except Exception:
                # A plugin misbehaving, or a socket gone between listing and looking: next look.
                _log.exception("plugin registry scan failed", registry=str(self.registry))
            await asyncio.sleep(self._interval)

    async def scan(self) -> None:
        """One look at the directory: new sockets register, vanished or replaced ones deregister."""
        present = {p: _inode(p) for p in sorted(self.registry.iterdir()) if is_socket(p)}
        for path, (known, info) in list(self._registered.items()):
            if present.get(path) != known:
                del self._registered[path]
                await self._deregister(info)
        for path, inode in present.items():
            if inode is not None and path not in self._registered and self._refused.get(path) != inode:
                await self._register(path, inode)

    async def _register(self, path: Path, inode: int) -> None:
        async with grpc.aio.insecure_channel(unix_target(path)) as channel:
            stub = pluginregistration_v1_pb2_grpc.RegistrationStub(channel)
            try:
                info = await stub.GetInfo(_reg.InfoRequest(), timeout=_INFO_TIMEOUT_SECONDS)
            except grpc.aio.AioRpcError as exc:
                _log.info("plugin not answering GetInfo yet", socket=str(path), error=go_status_text(exc))
                return
            error = ""
            try:
                handler = self._handlers.get(str(info.type))
                if handler is None:
                    raise RegistrationError(
                        f"no handler registered for plugin type: {info.type} at socket {path}"
                    )
                await handler[0](info, path)
            except RegistrationError as exc:
                error = str(exc)
            with contextlib.suppress(grpc.aio.AioRpcError):
                status = _reg.RegistrationStatus(plugin_registered=not error, error=error)
                await stub.NotifyRegistrationStatus(status, timeout=_INFO_TIMEOUT_SECONDS)
        if error:
            self._refused[path] = inode
            _log.warning("plugin registration refused", socket=str(path), error=error)
        else:
            self._registered[path] = (inode, info)
            _log.info("plugin registered", socket=str(path), type=info.type, name=info.name)

    async def _deregister(self, info: Any) -> None:
        handler = self._handlers.get(str(info.type))
        if handler is not None:
            await handler[1](info)


def _inode(path: Path) -> int | None:
    """None when the socket went away since the directory was listed."""
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None
