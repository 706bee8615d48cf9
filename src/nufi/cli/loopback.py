"""The loopback redirect of a native app's sign-in (RFC 8252 §7.3): a one-shot HTTP listener on
127.0.0.1 with a port the OS picks, which receives the authorization response."""

from __future__ import annotations

import threading
from html import escape
from http.server import BaseHTTPRequestHandler, HTTPServer
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from nufi.cli.say import say

CALLBACK_PATH = "/callback"


class _Handler(BaseHTTPRequestHandler):
    server: _Listener

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH:
            self.send_error(404)
            return
        params = dict(parse_qsl(parts.query))
        error = params.get("error_description") or params.get("error")
        text = say("cli.login.page_failed", error=error) if error else say("cli.login.page_done")
        body = f"<!DOCTYPE html><meta charset='utf-8'><title>NuFi</title><p>{escape(text)}</p>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
        if not self.server.answered.is_set():
            self.server.answer = params
            self.server.answered.set()

    def log_message(self, format: str, *args: object) -> None:
        # The request line carries the authorization code: never print it.
        return


class _Listener(HTTPServer):
    answer: dict[str, str]
    answered: threading.Event


class LoopbackReceiver:
    """`with LoopbackReceiver() as receiver:` listens until the block ends."""

    def __init__(self) -> None:
        self._listener = _Listener(("127.0.0.1", 0), _Handler)
        self._listener.answer = {}
        self._listener.answered = threading.Event()
        self._thread = threading.Thread(target=self._listener.serve_forever, daemon=True)

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self._listener.server_address[1]}{CALLBACK_PATH}"

    def __enter__(self) -> LoopbackReceiver:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._listener.shutdown()
        self._listener.server_close()

    def wait(self, timeout: float) -> dict[str, str] | None:
        """The authorization response's query parameters, or None when none came within `timeout`."""
        if not self._listener.answered.wait(timeout):
            return None
        return dict(self._listener.answer)
