"""When each part of the sandbox counts as up, asked the way a user would: over HTTP."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from nufi_sandbox.devcluster.launcher import STATE_FILE as CLUSTER_STATE_FILE
from nufi_sandbox.prometheus import PrometheusServer
from nufi_sandbox.sandbox.scrape import NUFI_JOB
from nufi_sandbox.sandbox.topology import SandboxNode


class Readiness:
    """Readiness questions over one shared HTTP client; every answer is a plain bool."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def answers(self, url: str) -> bool:
        return (await self._client.get(url)).status_code == 200

    async def cluster(self, url: str, state_dir: Path) -> bool:
        return (state_dir / CLUSTER_STATE_FILE).exists() and await self.answers(f"{url}/readyz")

    async def device_plugin_registered(
        self, kube_api_url: str, node: SandboxNode, kube_headers: Mapping[str, str]
    ) -> bool:
        """The node's capacity and allocatable both show every device of the plugin (asked with
        `kube_headers`, which carry the API's token)."""
        response = await self._client.get(f"{kube_api_url}/api/v1/nodes/{node.name}", headers=kube_headers)
        if response.status_code != 200:
            return False
        status = response.json().get("status", {})
        wanted = str(node.devices)
        return bool(
            status.get("capacity", {}).get(node.resource_key) == wanted
            and status.get("allocatable", {}).get(node.resource_key) == wanted
        )

    async def dra_slices_published(
        self, kube_api_url: str, node: SandboxNode, kube_headers: Mapping[str, str]
    ) -> bool:
        """The node's ResourceSlices hold every device of its DRA driver."""
        url = f"{kube_api_url}/apis/resource.k8s.io/v1/resourceslices"
        params = {"fieldSelector": f"spec.nodeName={node.name}"}
        response = await self._client.get(url, params=params, headers=kube_headers)
        if response.status_code != 200:
            return False
        items = response.json().get("items") or []
        return sum(len(item["spec"].get("devices") or []) for item in items) == node.devices

    @staticmethod
    async def every_target_scraped(prometheus: PrometheusServer, expected: int) -> bool:
        """Each of `expected` exporter targets is up and was scraped at least twice: its data is
        queryable at once, also by range queries and subqueries aligned to the scrape interval.
        NuFi's own target does not count: it is up once NuFi is, which is waited for apart."""
        up = f'up{{job!="{NUFI_JOB}"}}'
        scraped = await prometheus.query(f"(count_over_time({up}[30s]) >= 2) and ({up} == 1)")
        return len(scraped) == expected
