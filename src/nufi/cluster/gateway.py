"""The Kubernetes API client NuFi shares across services, with its readiness check."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from time import perf_counter
from typing import Any

import aiohttp
from kubernetes_asyncio.client import ApiClient, VersionApi
from kubernetes_asyncio.client.exceptions import ApiException

from nufi import __version__
from nufi.cluster.connection import KubeSource, load_configuration
from nufi.config import Settings
from nufi.errors import DependencyUnavailable
from nufi.health import DependencyStatus, elapsed_ms

KUBERNETES = "kubernetes"
_NOT_CONFIGURED = (
    "not configured: set NUFI_KUBECONFIG (and optionally NUFI_KUBE_CONTEXT), "
    "or run NuFi in a pod with a service account"
)


class ClusterGateway:
    """Owns one kubernetes-asyncio ApiClient built from NuFi's settings.

    Credentials are loaded on first use rather than at construction, and a failed load is retried
    on the next use: a kubeconfig mounted a little after start-up still gets picked up.
    """

    name = KUBERNETES

    def __init__(
        self,
        source: KubeSource | None,
        *,
        timeout_seconds: float = 5.0,
        request_timeout_seconds: float = 5.0,
    ) -> None:
        self._source = source
        # The readiness check's budget, and every other call's (a list, a whole paginated read).
        self._timeout = timeout_seconds
        self._request_timeout = request_timeout_seconds
        self._client: Any = None
        self._lock = asyncio.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, *, environ: Mapping[str, str] | None = None) -> ClusterGateway:
        return cls(
            KubeSource.from_settings(settings, environ),
            timeout_seconds=settings.readiness_timeout_seconds,
            request_timeout_seconds=settings.kube_timeout_seconds,
        )

    @property
    def configured(self) -> bool:
        return self._source is not None

    @property
    def source(self) -> KubeSource | None:
        return self._source

    @property
    def api_url(self) -> str | None:
        """The API server's URL once credentials are loaded, else None."""
        return None if self._client is None else str(self._client.configuration.host)

    @property
    def request_timeout_seconds(self) -> float:
        """How long one read of the cluster (every page of it) may take: NUFI_KUBE_TIMEOUT_SECONDS."""
        return self._request_timeout

    async def api_client(self) -> Any:
        """The shared ApiClient; raises DependencyUnavailable when it cannot be built."""
        if self._source is None:
            raise DependencyUnavailable(code="kube.not_configured", dependency=KUBERNETES)
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                try:
                    configuration = await load_configuration(self._source)
                except Exception as exc:
                    said = {"source": self._source.describe(), "error_type": type(exc).__name__}
                    raise DependencyUnavailable(
                        code="kube.credentials_unloadable",
                        params={**said, "error": str(exc)},
                        dependency=KUBERNETES,
                    ) from exc
                client = ApiClient(configuration=configuration)
                client.user_agent = f"nufi/{__version__}"
                self._client = client
        return self._client

    async def check(self) -> DependencyStatus:
        """GET /version: proves the API server is reachable and accepts our TLS settings."""
        if self._source is None:
            return DependencyStatus(name=self.name, ok=False, configured=False, detail=_NOT_CONFIGURED)
        started = perf_counter()
        try:
            client = await self.api_client()
        except DependencyUnavailable as exc:
            return self._status(False, exc.detail, started)
        host = client.configuration.host
        try:
            info = await VersionApi(client).get_code(_request_timeout=self._timeout)
        except ApiException as exc:
            detail = f"Kubernetes API at {host} answered HTTP {exc.status} {exc.reason} to GET /version"
            if exc.status in (401, 403):
                detail += f"; check the credentials in {self._source.describe()}"
            return self._status(False, detail, started)
        except (TimeoutError, aiohttp.ServerTimeoutError):
            return self._status(
                False, f"Kubernetes API at {host} did not answer within {self._timeout:g} s", started
            )
        except aiohttp.ClientConnectorError as exc:
            reason = _os_reason(exc.os_error)
            return self._status(False, f"cannot connect to the Kubernetes API at {host}: {reason}", started)
        except aiohttp.ClientError as exc:
            detail = f"request to the Kubernetes API at {host} failed: {type(exc).__name__}: {exc}"
            return self._status(False, detail, started)
        version = getattr(info, "git_version", None) or "(unknown version)"
        return self._status(True, f"Kubernetes {version} at {host}", started)

    async def close(self) -> None:
        async with self._lock:
            if self._client is not None:
                await self._client.close()
                self._client = None

    def _status(self, ok: bool, detail: str, started: float) -> DependencyStatus:
        return DependencyStatus(
            name=self.name, ok=ok, configured=True, detail=detail, latency_ms=elapsed_ms(started)
        )


def _os_reason(error: OSError) -> str:
    # asyncio words a refused connection as "Connect call failed (...)"; the errno says it plainly.
    return os.strerror(error.errno) if error.errno else str(error)
