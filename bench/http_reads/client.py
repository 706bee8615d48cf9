"""The readers of `bench.http_reads`, in a process of their own: N keep-alive connections, each sending
one GET after another for a number of seconds, timing every answer.

The client is a few lines of asyncio streams rather than an HTTP library, so that on a two-core machine
what it costs stays small beside the server it measures; it speaks just enough HTTP/1.1 for a
`Content-Length` answer. Prints one JSON object: reads, failures, statuses, reads/s, p50, p99 (seconds).

Run: `python -m bench.http_reads.client URL --clients N --seconds S --header "Name: value" ...`
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from urllib.parse import urlsplit


class Failed(Exception):
    pass


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, _, rest = head.partition(b"\r\n")
    status = int(status_line.split(b" ", 2)[1])
    length = 0
    for row in rest.split(b"\r\n"):
        name, _, value = row.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = await reader.readexactly(length) if length else b""
    return status, body


async def _reader(
    host: str, port: int, request: bytes, until: float, latencies: list[float], statuses: dict[int, int]
) -> int:
    failures = 0
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    while time.perf_counter() < until:
        try:
            if connection is None:
                connection = await asyncio.open_connection(host, port)
            reader, writer = connection
            began = time.perf_counter()
            writer.write(request)
            status, _ = await _read_answer(reader)
            latencies.append(time.perf_counter() - began)
            statuses[status] = statuses.get(status, 0) + 1
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            failures += 1
            if connection is not None:
                connection[1].close()
            connection = None
    if connection is not None:
        connection[1].close()
    return failures


def _quantile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


async def run(url: str, headers: list[str], clients: int, seconds: float) -> dict[str, object]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc}", *headers, "", ""]
    request = "\r\n".join(lines).encode()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    began = time.perf_counter()
    until = began + seconds
    failures = await asyncio.gather(
        *(_reader(host, port, request, until, latencies, statuses) for _ in range(clients))
    )
    took = time.perf_counter() - began
    return {
        "clients": clients,
        "reads": len(latencies),
        "failures": sum(failures),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "reads_per_second": len(latencies) / took,
        "p50": _quantile(latencies, 0.50),
        "p99": _quantile(latencies, 0.99),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.http_reads.client")
    parser.add_argument("url")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--header", action="append", default=[])
    options = parser.parse_args(argv)
    # The readers' own collections would pause every read in flight and be counted as the server's.
    gc.disable()
    figures = asyncio.run(run(options.url, options.header, options.clients, options.seconds))
    json.dump(figures, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
