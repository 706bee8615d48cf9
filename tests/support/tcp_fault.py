"""A loopback TCP forwarder in front of a real server, which a test can cut and restore: cut, it
stops listening and drops every open connection (as a server that died, or a network partition
would); restored, it listens again on the same port. What goes through it is not touched."""

from __future__ import annotations

import asyncio
import contextlib

from nufi_sandbox.processes import free_port

_CHUNK = 65536


class TcpFault:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    async def start(self) -> TcpFault:
        self._server = await asyncio.start_server(self._forward, "127.0.0.1", self.port)
        return self

    async def cut(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    async def restore(self) -> None:
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        await self.cut()

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._open.update((writer, upstream_writer))
        try:
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        finally:
            for end in (writer, upstream_writer):
                self._open.discard(end)
                end.transport.abort()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while chunk := await source.read(_CHUNK):
            sink.write(chunk)
            await sink.drain()
    with contextlib.suppress(OSError):
        sink.write_eof()
