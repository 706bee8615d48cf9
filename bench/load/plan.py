"""What a run is asked to do, its clock, and the users' tokens its workers send."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import httpx

from bench.load.world import SetupError


@dataclass(frozen=True)
class Plan:
    seconds: float
    snapshot_readers: int
    range_readers: int
    stream_readers: int
    dashboard_sessions: int
    writers: int
    poll_seconds: float
    range_poll_seconds: float
    write_pause: float


def now() -> float:
    return asyncio.get_running_loop().time()


async def pause_until(moment: float, deadline: float) -> None:
    await asyncio.sleep(max(0.0, min(moment, deadline) - now()))


class Tokens:
    """A user's access token from the password grant, taken again once half its lifetime has passed."""

    def __init__(self, client: httpx.AsyncClient, token_url: str, username: str, password: str) -> None:
        self._client = client
        self._url = token_url
        self._form = {"grant_type": "password", "client_id": "nufi-cli", "username": username}
        self._form["password"] = password
        self._token = ""
        self._renew_at = 0.0
        self._lock = asyncio.Lock()

    async def headers(self) -> dict[str, str]:
        if time.monotonic() >= self._renew_at:
            async with self._lock:
                if time.monotonic() >= self._renew_at:
                    response = await self._client.post(self._url, data=self._form)
                    if response.status_code != 200:
                        raise SetupError(f"no token for {self._form['username']!r}: {response.text}")
                    answer = response.json()
                    self._token = str(answer["access_token"])
                    self._renew_at = time.monotonic() + float(answer.get("expires_in", 300)) / 2
        return {"Authorization": f"Bearer {self._token}"}
