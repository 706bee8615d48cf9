"""What the lab proxy passes on, over real sockets: HTML bodies arrive whole (the services proxy's
rewritten pages read to their end, larger ones streamed as they are), `Impersonate-*` and hop-by-hop
headers stay behind, and a path with a dot segment is refused, never forwarded."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import httpx
import pytest

from nufi.api.labproxy.forward import MAX_REWRITTEN_HTML_BYTES
from support.world import World

from . import upstream
from .labs_world import behind_services_proxy, make_lab


async def test_rewritten_html_arrives_whole_and_larger_html_streams_whole(
    world: World, lab_server: str, tmp_path: Any, project: str, nufi: httpx.AsyncClient
) -> None:
    await make_lab(nufi, world, project)
    async with behind_services_proxy(world, lab_server, tmp_path, client_timeout=60) as client:
        prefix = f"/labs/{project}/lab/"
        behind = f"/api/v1/namespaces/{project}/services/lab:80/proxy"
        # Under the rewrite limit as the lab sends it (each line carries the services proxy's path):
        # read to its end, links put back.
        lines = MAX_REWRITTEN_HTML_BYTES // (len(upstream.big_page_line(0, behind + prefix)) + 1)
        page = await client.get(f"{prefix}big.html", params={"lines": lines}, headers=world.user)
        assert page.status_code == 200
        expected = upstream.big_page(prefix, lines)
        assert len(page.content) == len(expected) > 1024 * 1024
        assert hashlib.sha256(page.content).digest() == hashlib.sha256(expected).digest()
        assert page.headers["content-length"] == str(len(expected))
        # Over it: passed on as the lab sent it, every byte.
        over = upstream.BIG_PAGE_LINES
        big = await client.get(f"{prefix}big.html", params={"lines": over}, headers=world.user)
        assert big.status_code == 200
        sent = upstream.big_page(behind + prefix, over)
        assert len(sent) > MAX_REWRITTEN_HTML_BYTES
        assert len(big.content) == len(sent)
        assert hashlib.sha256(big.content).digest() == hashlib.sha256(sent).digest()


async def test_impersonation_headers_never_reach_the_lab(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    await make_lab(nufi, world, project)
    answer = await nufi.get(
        f"/labs/{project}/lab/api/x",
        headers={
            **world.user,
            "Impersonate-User": "system:admin",
            "Impersonate-Group": "system:masters",
            "Impersonate-Uid": "0",
            "Impersonate-Extra-Scopes": "all",
            "Connection": "x-hop",
            "X-Hop": "1",
            "Proxy-Authorization": "Basic eA==",
        },
    )
    assert answer.status_code == 200, answer.text
    names = {name.lower() for name, _ in answer.json()["headers"]}
    assert not {name for name in names if name.startswith("impersonate-")}, names
    assert not names & {"x-hop", "proxy-authorization"}


@pytest.mark.parametrize(
    "rest",
    ["..", "../..", "./api", "%2e%2e/%2e%2e/api/v1", "%2E%2E", ".%2e/x", "a%2f..%2f..%2fx", "%252e%252e/x"],
)
async def test_a_dot_segment_is_refused_not_forwarded(
    nufi: httpx.AsyncClient, world: World, project: str, rest: str
) -> None:
    await make_lab(nufi, world, project)
    before = len(upstream.RECORDED)
    status, problem = await _raw_get(nufi.base_url, f"/labs/{project}/lab/{rest}/record", world.user)
    assert status == 400, (rest, problem)
    assert problem["type"] == "invalid-lab-path"
    assert problem["field"] == "path"
    assert len(upstream.RECORDED) == before


async def _raw_get(base: httpx.URL, path: str, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """GET `path` exactly as written (HTTP clients remove dot segments before sending)."""
    reader, writer = await asyncio.open_connection(base.host, base.port)
    try:
        lines = [f"GET {path} HTTP/1.1", f"Host: {base.host}:{base.port}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout=30)
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        body = _unchunk(body)
    return status, json.loads(body)


def _unchunk(body: bytes) -> bytes:
    out = b""
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        out, body = out + body[:size], body[size + 2 :]
    return out
