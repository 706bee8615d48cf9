"""Signing a browser in to the dashboard through the dev identity provider, played by httpx: the
session cookie the lab proxy recognises."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlsplit

import httpx


async def sign_in(client: httpx.AsyncClient, username: str, password: str, *, next_path: str = "/") -> str:
    """The `nufi_session` id after signing `username` in on NuFi at `client`'s base URL."""
    login = await client.get("/auth/login", params={"next": next_path})
    assert login.status_code == 302, login.text
    async with httpx.AsyncClient(timeout=10.0) as browser:
        form_page = await browser.get(login.headers["location"])
        assert form_page.status_code == 200, form_page.text
        found = re.search(r"action='([^']+)'", form_page.text)
        assert found is not None, form_page.text
        fields = {
            unescape(n): unescape(v) for n, v in re.findall(r"name='([^']+)' value='([^']*)'", form_page.text)
        }
        submitted = await browser.post(
            unescape(found[1]), data={**fields, "username": username, "password": password}
        )
    assert submitted.status_code == 302, submitted.text
    back = urlsplit(submitted.headers["location"])
    callback = await client.get(f"{back.path}?{back.query}")
    assert callback.status_code == 303, callback.text
    assert callback.headers["location"] == next_path
    session = client.cookies.get("nufi_session")
    assert session, "the callback set no session cookie"
    # Kept out of the jar: each request names the cookies it means to send.
    client.cookies.clear()
    return session
