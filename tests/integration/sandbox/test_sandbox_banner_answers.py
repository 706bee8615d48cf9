"""The sandbox banner lists an address only once it answers 200 (redirects followed, as a browser
would), and names the others with what went wrong."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.routing import Route

from nufi_sandbox.sandbox.banner import Row, answering
from support.loopback import closed_port, serve_in_thread


def fake_site() -> Starlette:
    return Starlette(
        routes=[
            Route("/", lambda request: RedirectResponse("/sign-in", status_code=303)),
            Route("/sign-in", lambda request: PlainTextResponse("sign in")),
            Route("/gone", lambda request: PlainTextResponse("no", status_code=404)),
        ]
    )


async def test_only_addresses_that_answer_are_listed() -> None:
    with serve_in_thread(fake_site()) as url:
        rows = [
            Row("Dashboard", f"{url}/", url=f"{url}/"),
            Row("Gone", f"{url}/gone", url=f"{url}/gone"),
            Row("Down", "nothing", url=f"http://127.0.0.1:{closed_port()}/"),
            Row("State", "a file"),
        ]
        shown, missing = await answering(rows)
    assert [row.label for row in shown] == ["Dashboard", "State"]
    assert [(row.label, why) for row, why in missing] == [
        ("Gone", "answered HTTP 404"),
        ("Down", "did not answer (ConnectError)"),
    ]
