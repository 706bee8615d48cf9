"""The few Kubernetes API calls the driver makes, over HTTP with a bearer token, as a pod's
ServiceAccount would: list, create and delete its ResourceSlices, read a node and a ResourceClaim."""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

Obj = dict[str, Any]

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
TOKEN_ENV = "NUFI_MOCK_KUBE_TOKEN"
"""The API's bearer token, when not the pod's ServiceAccount token (the sandbox passes it here)."""

_SLICES = "/apis/resource.k8s.io/v1/resourceslices"


class KubeError(Exception):
    """The API answered with an error, or could not be reached; the message says which."""


@dataclass(frozen=True)
class KubeAccess:
    url: str
    token: str | None
    ca_file: Path | None

    @classmethod
    def from_environment(cls, url: str | None, ca_file: Path | None = None) -> KubeAccess:
        """``url`` or the in-cluster address; the token from TOKEN_ENV or the ServiceAccount's file."""
        host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT")
        address = url or (f"https://{host}:{port}" if host and port else None)
        if address is None:
            raise KubeError("no Kubernetes API: pass --kube-api-url or run in a pod")
        token = os.environ.get(TOKEN_ENV) or _read(SERVICE_ACCOUNT_DIR / "token")
        default_ca = SERVICE_ACCOUNT_DIR / "ca.crt"
        return cls(address.rstrip("/"), token, ca_file or (default_ca if default_ca.exists() else None))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


class KubeClient:
    def __init__(self, access: KubeAccess, *, timeout: float = 10.0, transport: Any = None) -> None:
        headers = {"Authorization": f"Bearer {access.token}"} if access.token else {}
        verify: Any = ssl.create_default_context(cafile=str(access.ca_file)) if access.ca_file else True
        self._http = httpx.AsyncClient(
            base_url=access.url, headers=headers, timeout=timeout, verify=verify, transport=transport
        )

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(self, method: str, path: str, body: Obj | None = None) -> Obj | None:
        """The answer's JSON; None for 404 (already gone, or not there)."""
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.HTTPError as exc:
            raise KubeError(f"{method} {path}: {exc!r}") from None
        if response.status_code == 404:
            return None
        if response.status_code >= 400:
            raise KubeError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        document: Obj = response.json()
        return document

    async def slices_of(self, driver: str, node: str) -> list[Obj]:
        """Every ResourceSlice of ``driver`` on ``node`` (filtered here: field selectors are optional)."""
        listed = await self._call("GET", _SLICES) or {}
        return [
            item
            for item in listed.get("items") or []
            if (item.get("spec") or {}).get("driver") == driver and item["spec"].get("nodeName") == node
        ]

    async def create_slice(self, body: Obj) -> Obj:
        created = await self._call("POST", _SLICES, body)
        if created is None:
            raise KubeError(f"POST {_SLICES}: the API serves no ResourceSlices (404)")
        return created

    async def delete_slice(self, name: str) -> None:
        await self._call("DELETE", f"{_SLICES}/{name}")

    async def node_uid(self, node: str) -> str | None:
        found = await self._call("GET", f"/api/v1/nodes/{node}")
        return None if found is None else str(found["metadata"]["uid"])

    async def claim(self, namespace: str, name: str) -> Obj | None:
        path = f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims/{name}"
        return await self._call("GET", path)
