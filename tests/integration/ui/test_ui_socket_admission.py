"""Who may open the dashboard's socket, against `nufi serve` as a process: only the browser of a page
built for a signed-in session (by the page's client id, which NiceGUI's script puts in the socket's
query), a bounded number per client address, and a socket that does not finish its page's handshake
in time is closed. Engine.io's polling transport is played by httpx."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import httpx
import pytest
import websockets
import websockets.sync.client

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.polling import poll

from .served_dashboard import Served, served_dashboard, sign_in

SOCKET = "/_nicegui_ws/socket.io/"
MAX_SOCKETS = 3
CLIENT_ID = re.compile(r"""["']client_id["']\s*:\s*["']([0-9a-f-]{36})["']""")
ENGINE_SID = re.compile(r'"sid"\s*:\s*"([^"]+)"')


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, idp: IdentityProviderProcess) -> Iterator[Served]:
    with served_dashboard(
        tmp_path_factory.mktemp("sockets"), idp, NUFI_DASHBOARD_MAX_SOCKETS_PER_CLIENT=str(MAX_SOCKETS)
    ) as running:
        yield running


def page(served: Served, session_id: str) -> str:
    """Open the dashboard's front page in `session_id`'s browser: the page's client id."""
    opened = httpx.get(f"{served.url}/", cookies={"nufi_session": session_id}, timeout=30)
    assert opened.status_code == 200, opened.text[:500]
    found = CLIENT_ID.search(opened.text)
    assert found is not None, opened.text[:2000]
    return found[1]


def connect(
    served: Served, client_id: str | None, session_id: str | None = None, **query: str
) -> httpx.Response:
    """Engine.io's first polling request, as NiceGUI's script sends it (from NuFi's own origin)."""
    params = {"EIO": "4", "transport": "polling", **query}
    if client_id is not None:
        page_query = {"client_id": client_id, "tab_id": "tab", "document_id": "doc"}
        params |= {**page_query, "implicit_handshake": "true"}
    cookies = {"nufi_session": session_id} if session_id else None
    return httpx.get(
        f"{served.url}{SOCKET}", params=params, cookies=cookies, headers={"Origin": served.url}, timeout=30
    )


def engine_sid(answer: httpx.Response) -> str:
    assert answer.status_code == 200 and answer.text.startswith("0{"), answer.text
    found = ENGINE_SID.search(answer.text)
    assert found is not None, answer.text
    return found[1]


def send(served: Served, sid: str, packet: str) -> httpx.Response:
    return httpx.post(
        f"{served.url}{SOCKET}",
        params={"EIO": "4", "transport": "polling", "sid": sid},
        content=packet.encode(),
        headers={"Origin": served.url, "Content-Type": "text/plain;charset=UTF-8"},
        timeout=30,
    )


def receive(served: Served, sid: str) -> httpx.Response:
    return httpx.get(
        f"{served.url}{SOCKET}",
        params={"EIO": "4", "transport": "polling", "sid": sid},
        headers={"Origin": served.url},
        timeout=60,
    )


def close(served: Served, sid: str) -> None:
    send(served, sid, "1")  # engine.io's close packet


def refused(answer: httpx.Response) -> None:
    assert answer.status_code == 401, answer.text
    assert not answer.text.startswith("0{")


def test_an_anonymous_socket_is_refused_on_both_transports(served: Served) -> None:
    refused(connect(served, None))
    refused(connect(served, str(uuid4())))
    url = served.url.replace("http://", "ws://") + SOCKET + "?EIO=4&transport=websocket"
    own = websockets.Origin(served.url)
    with pytest.raises(websockets.InvalidStatus) as closed, websockets.sync.client.connect(url, origin=own):
        pass
    assert closed.value.response.status_code == 403


def test_a_page_s_client_id_opens_no_socket_without_its_session(served: Served) -> None:
    admin = sign_in(served, "admin", "admin")
    client_id = page(served, admin)
    refused(connect(served, client_id))
    user = sign_in(served, "user", "user")
    # Another signed-in browser naming the page is refused too: the page is not its own.
    refused(connect(served, client_id, user))


def test_a_made_up_client_id_of_a_signed_in_browser_is_refused_a_page(served: Served) -> None:
    session_id = sign_in(served, "admin", "admin")
    # Admitted to be told there is no such page here (NiceGUI's script then reloads it).
    sid = engine_sid(connect(served, str(uuid4()), session_id))
    try:
        assert send(served, sid, "40").status_code == 200
        answer = receive(served, sid)
        assert answer.text.startswith("44"), answer.text
        assert "Implicit handshake failed" in answer.text
    finally:
        close(served, sid)


def test_a_signed_in_page_s_socket_completes_its_handshake(served: Served) -> None:
    session_id = sign_in(served, "admin", "admin")
    sid = engine_sid(connect(served, page(served, session_id), session_id))
    try:
        assert send(served, sid, "40").status_code == 200
        answer = receive(served, sid)
        assert answer.text.startswith("40{"), answer.text
    finally:
        close(served, sid)


def test_one_client_address_holds_a_bounded_number_of_sockets(served: Served) -> None:
    session_id = sign_in(served, "admin", "admin")
    client_id = page(served, session_id)
    held = [engine_sid(connect(served, client_id, session_id)) for _ in range(MAX_SOCKETS)]
    try:
        refused(connect(served, client_id, session_id))
        close(served, held.pop())

        def room_again() -> str:
            return engine_sid(connect(served, client_id, session_id))

        held.append(poll(room_again, within=10, what="a socket admitted once one closed"))
    finally:
        for sid in held:
            close(served, sid)


def test_a_socket_that_does_not_finish_its_handshake_in_time_is_closed(
    tmp_path: Path, idp: IdentityProviderProcess
) -> None:
    with served_dashboard(tmp_path, idp, NUFI_HTTP_HEADER_TIMEOUT_SECONDS="2") as served:
        session_id = sign_in(served, "admin", "admin")
        done = engine_sid(connect(served, page(served, session_id), session_id))
        assert send(served, done, "40").status_code == 200
        assert receive(served, done).text.startswith("40{")
        # Admitted (a signed-in browser), but it never sends socket.io's connect: no page handshake.
        late = engine_sid(connect(served, str(uuid4()), session_id))

        def gone() -> bool:
            # A poll waiting on the socket is answered its close packet; later ones, 400 (no such sid).
            answer = receive(served, late)
            packets = answer.text.split("\x1e")
            if answer.status_code == 200 and "2" in packets:
                send(served, late, "3")  # it answers pings, as the held sockets did
            return answer.status_code == 400 or "1" in packets

        poll(gone, within=40, what="the late socket closed")
        # The deadline passed for the earlier socket too: its page handshake was done, so it stays.
        kept = send(served, done, "3")  # a pong: taken from a live socket, 400 for a closed one
        assert kept.status_code == 200, kept.text
