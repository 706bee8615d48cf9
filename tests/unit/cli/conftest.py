"""The command line against an httpx.MockTransport: no server, no network, a private config dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from nufi.cli import app, client

Handler = Callable[[httpx.Request], httpx.Response]
SERVER = "https://nufi.test"


class FakeServer:
    """Answers requests with the handler a test sets, and remembers them."""

    def __init__(self) -> None:
        self.handler: Handler = lambda request: httpx.Response(404)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handler(request)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeServer]:
    fake = FakeServer()
    monkeypatch.setattr(client, "transport", httpx.MockTransport(fake))
    monkeypatch.setenv("NUFI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("NUFI_SERVER", SERVER)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    for name in ("LC_ALL", "LC_MESSAGES", "NUFI_TOKEN", "NUFI_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    yield fake


@pytest.fixture
def run() -> Callable[..., object]:
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> object:
        return runner.invoke(app, list(args), input=input)

    return invoke


def answer_by_path(bodies: dict[str, object]) -> Handler:
    """A handler answering each path's GET with its body, and 404 for any other path."""
    return lambda request: (
        httpx.Response(200, json=bodies[request.url.path])
        if request.url.path in bodies
        else httpx.Response(404)
    )
