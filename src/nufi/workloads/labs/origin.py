"""Where each lab is opened in a browser: an origin of its own, one DNS label under the lab base domain.

A lab runs software its owner chose, so its pages must share no origin (and, where the domain allows,
no site) with the dashboard, the API or any other lab. `NUFI_LAB_BASE_DOMAIN` names the domain
(`labs.example.com`, or `localhost:8123` on a workstation, where every `*.localhost` name resolves to
loopback); a lab's host is one label under it, so one wildcard certificate and one wildcard DNS
record cover every lab:

- `<name>--<project>.<base>` when that label fits 63 characters and neither name holds `--` (which
  would make two labs' labels collide: `a--b` + `c` against `a` + `b--c`);
- otherwise `lab-<24 hex digits of SHA-256("<project>/<name>")>`, which holds no `--` and so never
  equals a label of the first kind.

Cookies and SameSite ignore ports, which is why each lab gets a host name and not a port.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_LABEL_LENGTH = 63
_DIGEST_HEX = 24


def lab_label(project: str, name: str) -> str:
    """The DNS label of the lab `name` of `project` (both lowercase DNS labels already)."""
    readable = f"{name}--{project}"
    if len(readable) <= MAX_LABEL_LENGTH and "--" not in name and "--" not in project:
        return readable
    return "lab-" + hashlib.sha256(f"{project}/{name}".encode()).hexdigest()[:_DIGEST_HEX]


def split_host(host: str) -> tuple[str, int | None]:
    """`host[:port]` (a Host header, an authority) as a lowercase name without a trailing dot and the
    port, if any; a name that is not one (an IPv6 literal, garbage) comes back as given, lowercased."""
    text = host.strip().lower()
    name, port = text, None
    if text.count(":") == 1:
        name, _, digits = text.partition(":")
        port = int(digits) if digits.isdigit() else None
    return name.rstrip("."), port


@dataclass(frozen=True)
class LabOrigins:
    """The lab base domain as browsers reach it: a scheme, a domain and the port, if not the
    scheme's default."""

    scheme: str
    domain: str
    port: int | None = None

    @classmethod
    def from_settings(cls, base_domain: str | None, dashboard_public_url: str | None) -> LabOrigins | None:
        """None when no lab base domain is set. The scheme is the dashboard's public URL's; without one,
        `http` for a `localhost` domain (a workstation) and `https` anywhere else."""
        if not base_domain:
            return None
        domain, port = split_host(base_domain)
        if dashboard_public_url:
            scheme = urlsplit(dashboard_public_url).scheme or "https"
        else:
            scheme = "http" if domain == "localhost" or domain.endswith(".localhost") else "https"
        return cls(scheme=scheme, domain=domain, port=port)

    def host(self, project: str, name: str) -> str:
        return f"{lab_label(project, name)}.{self.domain}"

    def origin(self, project: str, name: str) -> str:
        """`scheme://host[:port]`, exactly as a browser sends it in `Origin`."""
        default = {"http": 80, "https": 443}.get(self.scheme)
        port = "" if self.port is None or self.port == default else f":{self.port}"
        return f"{self.scheme}://{self.host(project, name)}{port}"

    def label_of(self, host_header: str) -> str | None:
        """The lab label a request's Host names, or None when it names no host under the base domain
        (the dashboard's, or anything else)."""
        name, _ = split_host(host_header)
        suffix = "." + self.domain
        if not name.endswith(suffix):
            return None
        label = name[: -len(suffix)]
        return label if label and "." not in label else None

    def under(self, host_header: str) -> bool:
        """Whether a request's Host is anywhere under the base domain: the lab proxy's alone to answer,
        never the dashboard's."""
        name, _ = split_host(host_header)
        return name.endswith("." + self.domain)

    def serves(self, host_header: str, project: str, name: str) -> bool:
        """Whether a request with this Host is on the lab's own host."""
        return self.label_of(host_header) == lab_label(project, name)

    @property
    def secure(self) -> bool:
        return self.scheme == "https"
