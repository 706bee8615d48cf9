"""The loopback redirect of a native app's sign-in (RFC 8252 §7.3): an HTTP listener on 127.0.0.1
with a port the OS picks, which receives the authorization response.

Any local process can reach that port, so an answer counts only when it carries this sign-in's
`state` (RFC 6749 §10.12); any other is answered 400 and ignored, and the listener keeps waiting
for the real one until the timeout."""

from __future__ import annotations

import secrets
import threading
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from nufi.cli.say import language
from nufi.messages import preferred_language, render

CALLBACK_PATH = "/callback"


class _Handler(BaseHTTPRequestHandler):
    server: _Listener
    # A connection that sends nothing is dropped after this long, and each has a thread of its own:
    # a local process holding a connection open cannot keep the real answer out.
    timeout = 10.0

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        params = dict(parse_qsl(parts.query))
        if not secrets.compare_digest(params.get("state", "").encode(), self.server.state.encode()):
            self._page(HTTPStatus.BAD_REQUEST, "cli.login.page_wrong_state")
            return
        error = params.get("error_description") or params.get("error")
        if error:
            self._page(HTTPStatus.OK, "cli.login.page_failed", error=error)
        else:
            self._page(HTTPStatus.OK, "cli.login.page_done")
        with self.server.lock:
            if not self.server.answered.is_set():
                self.server.answer = params
                self.server.answered.set()

    def _page(self, status: HTTPStatus, code: str, **params: object) -> None:
        # The page is read in the browser, so it speaks the browser's language; the terminal's
        # language stands in when the browser names none NuFi speaks.
        lang = preferred_language(self.headers.get("Accept-Language"), default=language())
        text = render(lang, code, params)
        body = (
            f"<!DOCTYPE html><html lang='{lang}'><meta charset='utf-8'><title>NuFi</title>"
            f"<p>{escape(text)}</p></html>"
        ).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        # The request line carries the authorization code: never print it.
        return


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    state: str
    answer: dict[str, str]
    answered: threading.Event
    lock: threading.Lock


class LoopbackReceiver:
    """`with LoopbackReceiver(state) as receiver:` listens until the block ends, taking the first
    answer that carries `state`."""

    def __init__(self, state: str) -> None:
        self._listener = _Listener(("127.0.0.1", 0), _Handler)
        self._listener.state = state
        self._listener.answer = {}
        self._listener.answered = threading.Event()
        self._listener.lock = threading.Lock()
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
        """This sign-in's authorization response (its query parameters), or None when none came
        within `timeout`."""
        if not self._listener.answered.wait(timeout):
            return None
        return dict(self._listener.answer)
