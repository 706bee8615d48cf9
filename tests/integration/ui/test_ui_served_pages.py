"""The dashboard's server-side pages under load, and its socket's origins, against `nufi serve` as a
process: plain signed-in GETs must not pile up pages (each holds its elements until pruned), and the
socket a page talks over opens only from NuFi's own origin."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import httpx
import pytest
import websockets

from nufi.ui.open_pages import MAX_PAGES_PER_SESSION
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.polling import eventually

from .served_dashboard import Served, served_dashboard, sign_in

GETS = 400
CONCURRENCY = 8
# Generous: a thousand pages kept took NuFi from 222 MB to 918 MB (about 0.7 MB each), so keeping these
# four hundred would pass it twice over; a bounded few are far below it.
RSS_GROWTH_LIMIT_KIB = 150 * 1024
SOCKET = "/_nicegui_ws/socket.io/"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, idp: IdentityProviderProcess) -> Iterator[Served]:
    with served_dashboard(tmp_path_factory.mktemp("served"), idp) as running:
        yield running


def total(pages: dict[str, int]) -> int:
    return sum(pages.values())


async def test_hundreds_of_signed_in_gets_leave_no_pages_behind(served: Served) -> None:
    session_id = sign_in(served, "admin", "admin")
    baseline = total(served.pages())
    rss_before = served.rss_kib()
    most = baseline
    async with httpx.AsyncClient(
        base_url=served.url, cookies={"nufi_session": session_id}, timeout=60
    ) as client:

        async def get_pages(count: int) -> None:
            nonlocal most
            for _ in range(count):
                page = await client.get("/admin/projects")
                assert page.status_code == 200, page.text[:500]

        for _ in range(GETS // (CONCURRENCY * 25)):
            await asyncio.gather(*(get_pages(25) for _ in range(CONCURRENCY)))
            # However fast they come, one session keeps at most its cap of pages.
            most = max(most, total(await asyncio.to_thread(served.pages)))
    assert most <= baseline + MAX_PAGES_PER_SESSION, most
    grown = served.rss_kib() - rss_before
    assert grown < RSS_GROWTH_LIMIT_KIB, f"RSS grew by {grown // 1024} MiB during the GETs"

    def back_to_baseline() -> None:
        assert total(served.pages()) == baseline

    await eventually(back_to_baseline, within=60)
    grown = served.rss_kib() - rss_before
    print(f"RSS before {rss_before // 1024} MiB, after {served.rss_kib() // 1024} MiB")
    assert grown < RSS_GROWTH_LIMIT_KIB, f"RSS grew by {grown // 1024} MiB"


async def test_gets_of_someone_not_signed_in_keep_no_page(served: Served) -> None:
    baseline = total(served.pages())
    async with httpx.AsyncClient(base_url=served.url, timeout=60) as client:
        for _ in range(50):
            assert (await client.get("/admin/projects")).status_code == 303
    assert total(served.pages()) == baseline


def handshake(served: Served, origin: str | None, session_id: str | None = None) -> httpx.Response:
    """Engine.io's first polling request; with `session_id`, for a page that session just opened (an
    anonymous socket is refused whatever its origin: test_ui_socket_admission)."""
    headers = {"Origin": origin} if origin else {}
    params = {"EIO": "4", "transport": "polling"}
    cookies = None
    if session_id is not None:
        cookies = {"nufi_session": session_id}
        params["client_id"] = page_client_id(served, session_id)
    return httpx.get(f"{served.url}{SOCKET}", params=params, headers=headers, cookies=cookies)


def page_client_id(served: Served, session_id: str) -> str:
    opened = httpx.get(f"{served.url}/", cookies={"nufi_session": session_id}, timeout=30)
    found = re.search(r"""["']client_id["']\s*:\s*["']([0-9a-f-]{36})["']""", opened.text)
    assert found is not None, opened.text[:2000]
    return found[1]


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://127.0.0.1:1", "http://lab.localhost:8080", "null"]
)
def test_the_socket_refuses_a_polling_handshake_from_another_origin(served: Served, origin: str) -> None:
    refused = handshake(served, origin)
    assert refused.status_code == 400, refused.text
    assert "access-control-allow-origin" not in refused.headers


def test_the_socket_accepts_its_own_origin(served: Served) -> None:
    session_id = sign_in(served, "admin", "admin")
    own = handshake(served, served.url, session_id)
    assert own.status_code == 200 and own.text.startswith("0{"), own.text
    assert own.headers["access-control-allow-origin"] == served.url
    # No Origin: not started by a page of any site (same-origin GETs may leave it out).
    assert handshake(served, None, session_id).status_code == 200


async def test_the_socket_refuses_a_websocket_from_another_origin(served: Served) -> None:
    url = served.url.replace("http://", "ws://") + SOCKET + "?EIO=4&transport=websocket"
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(url, origin=websockets.Origin("https://evil.example")):
            pass
    assert refused.value.response.status_code in (400, 403)
    session_id = sign_in(served, "admin", "admin")
    page = f"{url}&client_id={page_client_id(served, session_id)}"
    cookie = {"Cookie": f"nufi_session={session_id}"}
    own_origin = websockets.Origin(served.url)
    async with websockets.connect(page, origin=own_origin, additional_headers=cookie) as own:
        assert str(await asyncio.wait_for(own.recv(), 10)).startswith("0{")
