"""Security headers on every HTTP answer: what a browser may load, frame and send along with it.

A pure ASGI middleware, installed outermost by `nufi.api.create_app`, so it also covers the answers
the request-id middleware, the guard and the lab proxy give themselves, and NiceGUI's mounted app.
A header a response already carries is left as it is: a route (or a lab) that knows better wins.

- `X-Content-Type-Options: nosniff` everywhere: a file served as text is never run as script.
- `Referrer-Policy: same-origin`: NuFi's paths (project and lab names, query strings) stay out of
  the Referer other sites see. Not `no-referrer`: under that policy a browser sends `Origin: null`
  on NuFi's own POSTs (the sign-out form, socket.io's polling), and the sign-in needs no Referer at
  the issuer (state, PKCE and the redirect URI carry everything).
- `Content-Security-Policy`, by what the answer is:
  - an HTML page of NuFi (the dashboard, the sign-in pages): only NuFi's origin for scripts, styles,
    images, fonts and connections; inline script and `eval` because NiceGUI, Vue and Quasar need them
    (Vue compiles templates at run time, NiceGUI starts every page with an inline script); no
    plugins, no framing, no `<base>` elsewhere, forms only to NuFi and to the OIDC issuer (the
    sign-out form is answered with a redirect to the issuer's end-session endpoint, and browsers hold
    a form's redirects to `form-action` too);
  - FastAPI's API docs pages (`/docs`, `/redoc`): the same, plus the CDN they load Swagger UI and
    ReDoc from;
  - anything else NuFi answers (JSON, problems, static assets, metrics): `default-src 'none'` and no
    framing, so a response opened as a document loads nothing;
  - whatever the lab proxy passes back from a lab (`/labs/...`, `/notebook/...`): only
    `frame-ancestors 'self'`, when the lab sets no policy of its own. A lab runs software its owner
    chose (JupyterLab, VS Code) whose needs NuFi cannot know; JupyterLab sends that same directive
    itself, and VS Code frames its own pages (webviews), so `'none'` would break it. That holds on the
    lab's own host (nufi.api.labproxy.origin); on the dashboard's origin, where only bearer callers get a
    lab's answers, the proxy adds `sandbox; frame-ancestors 'none'` to each (a policy of its own, which
    a lab's cannot loosen), so a browser that renders one does so in an opaque origin.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nufi.api.edge.http_only import HttpOnlyMiddleware
from nufi.api.labproxy import match_lab_path

NOSNIFF = "nosniff"
REFERRER_POLICY = "same-origin"
# What none of NuFi's own answers may be: framed by another site (clickjacking).
NO_FRAMING = "frame-ancestors 'none'"
LAB_POLICY = "frame-ancestors 'self'"
NOT_A_PAGE_POLICY = f"default-src 'none'; {NO_FRAMING}"
_ALWAYS = ((b"x-content-type-options", NOSNIFF.encode()), (b"referrer-policy", REFERRER_POLICY.encode()))
# Where FastAPI's get_swagger_ui_html and get_redoc_html load their scripts, styles, fonts and icon.
_DOCS_SOURCES = {
    "script-src": ("https://cdn.jsdelivr.net",),
    "style-src": ("https://cdn.jsdelivr.net", "https://fonts.googleapis.com"),
    "font-src": ("https://fonts.gstatic.com",),
    "img-src": ("https://fastapi.tiangolo.com",),
    # ReDoc builds its search index in a worker made from a blob.
    "worker-src": ("blob:",),
}


def page_policy(issuer: str | None, *, docs: bool = False) -> str:
    """The Content-Security-Policy of an HTML page NuFi serves; `docs` for FastAPI's docs pages."""
    directives: dict[str, list[str]] = {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'unsafe-inline'", "'unsafe-eval'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        # 'self' covers ws: and wss: to NuFi's own host and port (CSP Level 3), which is where
        # socket.io connects; a bare `ws:` would let a page open sockets to any host.
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'", *_origin(issuer)],
    }
    if docs:
        for name, sources in _DOCS_SOURCES.items():
            directives.setdefault(name, ["'self'"]).extend(sources)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def _origin(url: str | None) -> list[str]:
    """`scheme://host[:port]` of `url` as a CSP source, or nothing when it is not a plain http(s) URL
    (a source expression must not carry `;`, `,`, quotes or spaces, which would end or bend it)."""
    if not url:
        return []
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
        return []
    if any(ch in parts.netloc for ch in " ;,'\"\\") or not parts.netloc.isascii():
        return []
    return [f"{parts.scheme}://{parts.netloc}"]


class SecurityHeadersMiddleware(HttpOnlyMiddleware):
    def __init__(self, app: ASGIApp, *, issuer: str | None, docs_paths: Iterable[str | None] = ()) -> None:
        super().__init__(app)
        self.page_policy = page_policy(issuer)
        self.docs_policy = page_policy(issuer, docs=True)
        self.docs_paths = frozenset(path for path in docs_paths if path)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        from_lab = match_lab_path(path) is not None

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = self._with_headers(message.get("headers", ()), path, from_lab)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _with_headers(
        self, raw: Iterable[tuple[bytes, bytes]], path: str, from_lab: bool
    ) -> list[tuple[bytes, bytes]]:
        # One pass over the answer's own headers: every answer goes through here.
        headers = list(raw)
        present: set[bytes] = set()
        content_type = b""
        for name, value in headers:
            lowered = name.lower()
            present.add(lowered)
            if lowered == b"content-type":
                content_type = value
        for name, value in _ALWAYS:
            if name not in present:
                headers.append((name, value))
        if b"content-security-policy" not in present:
            policy = self._policy(path, from_lab, content_type.decode("latin-1"))
            headers.append((b"content-security-policy", policy.encode("latin-1")))
        return headers

    def _policy(self, path: str, from_lab: bool, content_type: str) -> str:
        if from_lab:
            return LAB_POLICY
        if not content_type.lower().startswith("text/html"):
            return NOT_A_PAGE_POLICY
        return self.docs_policy if path in self.docs_paths else self.page_policy
