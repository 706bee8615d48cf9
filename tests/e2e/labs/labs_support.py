"""What the labs' browser walks share: the LPU registered through the admin's API, and a lab's
readiness asked of it."""

from __future__ import annotations

import httpx

from e2e.e2e_sandbox_support import LPU_REGISTRATION

# How long a lab may take to be Ready on a loaded machine: its pod scheduled, its server started.
READY_WITHIN = 180.0


async def registered(api: httpx.AsyncClient) -> bool:
    """Register the LPU as the admin `api` is (or find it there already)."""
    answer = await api.post("/api/v1/admin/devices", json=LPU_REGISTRATION)
    return answer.status_code in (201, 409)


async def lab_ready(api: httpx.AsyncClient, project: str, name: str) -> bool:
    answer = await api.get(f"/api/v1/projects/{project}/labs/{name}")
    return answer.status_code == 200 and answer.json()["status"] == "Ready"
