"""Serving NuFi over the monitoring world in the tests: settings, tokens and custom device types."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer

from .monitoring_world import RunningExporter


@dataclass
class World:
    prometheus: PrometheusServer
    cluster: DevClusterProcess
    exporters: dict[str, RunningExporter]


def nufi_settings(idp: IdentityProviderProcess, prometheus_url: str, kubeconfig: Path | None) -> Settings:
    return Settings(
        database_url=SecretStr("sqlite+aiosqlite:///:memory:"),
        oidc_issuer=idp.issuer,
        prometheus_url=prometheus_url,
        kubeconfig=kubeconfig,
        # The tests' exporters are scraped every second.
        monitoring_scrape_interval_seconds=1,
    )


def bearer(idp: IdentityProviderProcess, user: str) -> dict[str, str]:
    """The headers of `user` (whose password is its name in the sandbox realm)."""
    return {"Authorization": f"Bearer {idp.password_token(user, user)}"}


def lpu_type(type_id: str, job: str, resource_key: str) -> dict[str, Any]:
    selector = f'{{job="{job}"}}'
    return {
        "id": type_id,
        "name": f"HyperAccel LPU ({type_id})",
        "vendor": "HyperAccel",
        "resource_key": resource_key,
        "labels": {"node": "node", "device": "device", "pod": "pod", "namespace": "namespace"},
        "metrics": {
            "utilization": f"lpu_utilization_percent{selector}",
            "memory": {
                "mode": "used_total",
                "used": f"lpu_memory_used_bytes{selector}",
                "total": f"lpu_memory_total_bytes{selector}",
                "unit": "bytes",
            },
            "temperature": f"lpu_temperature_celsius{selector}",
        },
    }


ACME_TYPE: dict[str, Any] = {
    "id": "acme",
    "name": "Acme accelerator",
    "vendor": "Acme",
    "resource_key": "example.com/acc",
    "labels": {"node": "host", "device": "dev", "pod": "pod", "namespace": "namespace"},
    "metrics": {"utilization": "acme_util"},
}
BROKEN_TYPE: dict[str, Any] = {
    **lpu_type("broken", "monitoring-lpu", "example.com/broken"),
    "metrics": {
        "utilization": 'lpu_utilization_percent{job="monitoring-lpu"}',
        # Many series on each side share a node: Prometheus refuses to execute it.
        "temperature": "lpu_temperature_celsius + on (node) lpu_memory_used_bytes",
    },
}


async def register_custom_types(client: httpx.AsyncClient, idp: IdentityProviderProcess) -> None:
    admin = bearer(idp, "admin")
    for payload, force in (
        (lpu_type("lpu", "monitoring-lpu", "hyperaccel.ai/lpu"), False),
        (lpu_type("gone-lpu", "monitoring-gone", "example.com/gone"), False),
        (lpu_type("blink-lpu", "monitoring-blink", "example.com/blink"), False),
        # No exporter serves this job: the node advertising the key reports nothing.
        (lpu_type("quiet-lpu", "monitoring-quiet", "example.com/quiet"), True),
        (ACME_TYPE, False),
        (BROKEN_TYPE, True),
    ):
        response = await client.post(
            "/api/v1/admin/devices", json=payload, params={"force": str(force).lower()}, headers=admin
        )
        assert response.status_code == 201, response.text
