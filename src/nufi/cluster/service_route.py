"""How NuFi reaches a Service in the cluster over HTTP: the Kubernetes API's services proxy, or DNS.

Outside the cluster NuFi has no route to Service addresses, but its Kubernetes credentials let it use
the API server's proxy subresource, `/api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/<path>`
(as `kubectl proxy` does). Inside the cluster the Service's DNS name is shorter and keeps the API
server out of the data path. `NUFI_LAB_ROUTE` picks one; `auto` picks DNS when NuFi runs in a pod with
a service account.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote

import aiohttp

from nufi.cluster.gateway import ClusterGateway
from nufi.config import Settings


@dataclass(frozen=True)
class Upstream:
    """Where a Service answers: a base URL the request's path is appended to, the headers that
    authenticate NuFi there (never the caller's), and the TLS settings to connect with."""

    base_url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    # None: the default verification for https (and nothing for http).
    ssl_context: ssl.SSLContext | None = None
    # The API server's proxy prefixes absolute paths in the redirects and HTML it passes back with the
    # proxy path itself; what to take out of them again so the browser stays on NuFi's own paths.
    rewritten_prefix: str = ""


class ServiceRoute(Protocol):
    """Resolves a Service port to the Upstream that reaches it."""

    name: str

    async def upstream(self, namespace: str, service: str, port: int) -> Upstream: ...


class ServiceProxyRoute:
    """Through the Kubernetes API server's services proxy, with NuFi's Kubernetes credentials."""

    name = "service-proxy"

    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster
        self._ssl: tuple[int, ssl.SSLContext | None] | None = None

    async def upstream(self, namespace: str, service: str, port: int) -> Upstream:
        configuration = (await self._cluster.api_client()).configuration
        host = str(configuration.host).rstrip("/")
        path = (
            f"/api/v1/namespaces/{quote(namespace, safe='')}/services/{quote(service, safe='')}:{port}/proxy"
        )
        headers: dict[str, str] = {}
        # The token of a kubeconfig (refreshed by its exec plug-in, if any) or of the service account.
        for auth in (await configuration.auth_settings()).values():
            if auth.get("in") == "header" and auth.get("value"):
                headers[str(auth["key"]).title()] = str(auth["value"])
        return Upstream(
            base_url=host + path,
            headers=headers,
            ssl_context=self._ssl_context(configuration) if host.startswith("https:") else None,
            rewritten_prefix=path,
        )

    def _ssl_context(self, configuration: Any) -> ssl.SSLContext | None:
        # Built once per Configuration, as kubernetes-asyncio's own REST client builds it.
        if self._ssl is not None and self._ssl[0] == id(configuration):
            return self._ssl[1]
        context = ssl.create_default_context(cafile=configuration.ssl_ca_cert)
        if configuration.cert_file:
            context.load_cert_chain(configuration.cert_file, keyfile=configuration.key_file)
        if not configuration.verify_ssl:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        self._ssl = (id(configuration), context)
        return context


class ClusterDnsRoute:
    """By the Service's DNS name: `http://<service>.<namespace>.svc:<port>` unless configured otherwise
    (NUFI_LAB_CLUSTER_DNS_URL, with `{service}`, `{namespace}` and `{port}` filled in)."""

    name = "cluster-dns"

    def __init__(self, template: str = "http://{service}.{namespace}.svc:{port}") -> None:
        self._template = template

    async def upstream(self, namespace: str, service: str, port: int) -> Upstream:
        base = self._template.format(service=service, namespace=namespace, port=port)
        return Upstream(base_url=base.rstrip("/"))


def route_from_settings(settings: Settings, cluster: ClusterGateway) -> ServiceRoute:
    """The route NUFI_LAB_ROUTE asks for; `auto` is cluster-dns when NuFi's credentials are the pod's
    service account, else the services proxy."""
    choice = settings.lab_route
    if choice == "auto":
        in_cluster = cluster.source is not None and cluster.source.kind == "in-cluster"
        choice = "cluster-dns" if in_cluster else "service-proxy"
    if choice == "cluster-dns":
        return ClusterDnsRoute(settings.lab_cluster_dns_url)
    return ServiceProxyRoute(cluster)


class ServiceClient:
    """The HTTP client that talks to Services over a `ServiceRoute`: one connection pool per process,
    no cookie jar (one caller's cookies must never reach another's request), bodies passed through
    as they come (no decompression), redirects returned rather than followed."""

    def __init__(self, route: ServiceRoute, *, connect_timeout_seconds: float = 10.0) -> None:
        self.route = route
        self._connect_timeout = connect_timeout_seconds
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
                # Streams (a kernel's WebSocket, a long download) may stay open as long as they like;
                # only reaching the lab is bounded.
                timeout=aiohttp.ClientTimeout(
                    total=None, connect=self._connect_timeout, sock_connect=self._connect_timeout
                ),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @classmethod
    def from_settings(cls, settings: Settings, cluster: ClusterGateway) -> ServiceClient:
        return cls(
            route_from_settings(settings, cluster),
            connect_timeout_seconds=settings.lab_proxy_connect_timeout_seconds,
        )
