"""Which origin is NuFi's own, and whether a browser's request comes from it.

The dashboard's credential is a cookie, which a browser attaches whatever page started the request;
SameSite=Lax keeps it off most cross-site requests, but not off those from a sibling origin of the
same site (another port, a lab's host name under the same domain). So state changes made with the
cookie, and the dashboard's socket, accept only NuFi's own origin: the configured public URL's, or,
with none configured, the request's own host when that is a loopback name (a developer's machine).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

# Browsers only refuse to send Secure cookies over plain HTTP; on loopback a developer has no TLS.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK_HOST_HEADER = re.compile(r"(?i:127\.0\.0\.1|localhost|\[::1\])(:[0-9]{1,5})?")


def origin_of(url: str) -> str | None:
    """`scheme://host[:port]` of an absolute http(s) URL, lower-cased, the default port left out;
    None for anything else (including the `null` origin of sandboxed frames and file pages)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def is_loopback_host(host_header: str | None) -> bool:
    """Whether a Host header (`name[:port]`) names this machine's loopback interface."""
    return bool(host_header) and _LOOPBACK_HOST_HEADER.fullmatch(host_header or "") is not None


def own_origin(public_url: str | None, *, scheme: str, host_header: str | None) -> str | None:
    """NuFi's own origin for a request reaching it as `scheme://host_header`: the public URL's when
    one is configured; else the request's own, but only on a loopback name (a name an attacker
    points at the server, DNS rebinding, must not become NuFi's origin); else None."""
    if public_url:
        return origin_of(public_url)
    if not is_loopback_host(host_header):
        return None
    return origin_of(f"{scheme}://{host_header}")


def from_own_origin(headers: Mapping[str, str], own: str | None) -> bool:
    """Whether a browser's request was started by a page of `own`, as browsers tell it: `Origin`
    (sent with every POST and WebSocket handshake by current browsers), else `Sec-Fetch-Site`,
    else `Referer`. A request carrying none of them comes from no browser page (curl, a script),
    which cannot hold a person's cookie without being given it, and is let through."""
    origin = headers.get("origin")
    if origin is not None:
        return own is not None and origin_of(origin) == own
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    referer = headers.get("referer")
    if referer is not None:
        return own is not None and origin_of(referer) == own
    return True
