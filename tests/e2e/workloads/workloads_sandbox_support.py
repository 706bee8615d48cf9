"""What the workloads' sandbox tests share: the world they act in (NuFi as the admin and a user, the
Kubernetes API with the sandbox's credentials), the LPUs' utilization as their exporters report it,
and for the quota checks NuFi's quota through its API, the ResourceQuota it writes as the Kubernetes
API holds it, and pods created the way `kubectl apply` creates them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from e2e.e2e_sandbox_support import LPU, SandboxRun, all_stats
from support.polling import poll

PROJECT = "team-lpu"
QUOTA_PROJECT = "team-quota"
QUOTA_NAME = "nufi-accelerators"
MODEL = "mock-lpu-llm"
READY_WITHIN = 120.0
UTILIZATION = re.compile(r"^lpu_utilization_percent\{(?P<labels>[^}]*)\} (?P<value>\S+)$", re.MULTILINE)
DEVICE = re.compile(r'device="([^"]+)"')


@dataclass
class World:
    sandbox: SandboxRun
    nufi: httpx.Client  # NuFi as the admin
    user: dict[str, str]  # headers of a signed-in user, a member of QUOTA_PROJECT only
    admin: dict[str, str]
    kube: httpx.Client  # the Kubernetes API with the sandbox's kubeconfig credentials
    # What the tests learn on the way.
    served: dict[str, tuple[str, tuple[str, ...]]]  # pod -> (node, devices)

    def workload(self, kind: str, name: str, project: str = PROJECT) -> dict[str, Any]:
        response = self.nufi.get(f"/api/v1/projects/{project}/{kind}/{name}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def until_status(self, kind: str, name: str, status: str, project: str = PROJECT) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            body = self.workload(kind, name, project)
            return body if body["status"] == status else None

        return poll(reached, READY_WITHIN, every=0.5, what=f"{kind}/{name} {status}")

    def pod_processes(self) -> list[int]:
        """Processes the dev cluster's kubelet runs for pods (every descendant of the dev cluster)."""
        (cluster,) = [pid for pid in self.sandbox.children if "nufi_sandbox.devcluster" in _cmdline(pid)]
        stats = all_stats()
        found: set[int] = set()
        parents = {cluster}
        while parents:
            children = {s.pid for s in stats if s.ppid in parents} - found
            found |= children
            parents = children
        return sorted(found)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def created_or_none(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The created object, or None while the server refuses to create it (the world is not there yet)."""
    response = client.post(path, json=body)
    if response.status_code != 201:
        return None
    answered: dict[str, Any] = response.json()
    return answered


def utilization(url: str) -> dict[str, float]:
    """Each device's utilization as the exporter at `url` reports it."""
    text = httpx.get(url, timeout=10).text
    values = {}
    for sample in UTILIZATION.finditer(text):
        device = DEVICE.search(sample["labels"])
        if device:
            values[device.group(1)] = float(sample["value"])
    return values


def served_body(image: str) -> dict[str, Any]:
    """A deployment of the mock inference server on one LPU per replica, Ready once it answers."""
    return {
        "name": "served",
        "image": image,
        "args": ["inference", "--model", MODEL],
        "accelerator": {"device_type": "lpu", "count": 1},
        "port": 8000,
        "readiness_path": "/health",
    }


def lpus_used(kube: httpx.Client, project: str) -> str | None:
    """What NuFi's ResourceQuota of `project` counts of the LPUs in use (its status.used)."""
    used = (resource_quota(kube, project).get("status") or {}).get("used") or {}
    return used.get(f"requests.{LPU}")


def put_quota(nufi: httpx.Client, project: str, body: dict[str, Any]) -> dict[str, Any]:
    """NuFi's quota of `project` replaced by `body`, as the admin; what NuFi answers."""
    response = nufi.put(f"/api/v1/admin/projects/{project}/quotas", json=body)
    assert response.status_code == 200, response.text
    answered: dict[str, Any] = response.json()
    return answered


def resource_quota(kube: httpx.Client, project: str) -> dict[str, Any]:
    response = kube.get(f"/api/v1/namespaces/{project}/resourcequotas/{QUOTA_NAME}")
    assert response.status_code == 200, response.text
    quota: dict[str, Any] = response.json()
    return quota


def offer(nufi: httpx.Client, project: str, device_type: str, headers: dict[str, str]) -> dict[str, Any]:
    """The project's offer of `device_type` from `GET …/accelerators`, with its quota and use."""
    response = nufi.get(f"/api/v1/projects/{project}/accelerators", headers=headers)
    assert response.status_code == 200, response.text
    (found,) = [item for item in response.json()["items"] if item["device_type"] == device_type]
    return dict(found)


def live_pods(kube: httpx.Client, project: str) -> list[dict[str, Any]]:
    """The namespace's pods that are not being deleted."""
    items = kube.get(f"/api/v1/namespaces/{project}/pods").json()["items"]
    return [pod for pod in items if not pod["metadata"].get("deletionTimestamp")]


def create_pod(
    kube: httpx.Client, project: str, name: str, image: str, limits: dict[str, str]
) -> httpx.Response:
    """A bare pod asking for `limits`, as `kubectl apply` of this manifest would create it (Kubernetes
    defaults its requests to its limits)."""
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": project},
        "spec": {"containers": [{"name": "main", "image": image, "resources": {"limits": limits}}]},
    }
    return kube.post(f"/api/v1/namespaces/{project}/pods", json=manifest)


def forbidden_by_quota(pod: str, resource: str, requested: int, used: int, limited: int) -> str:
    """kube-apiserver's words when quota admission refuses pod `pod` (a `Status` of reason Forbidden)."""
    figure = f"requests.{resource}"
    return (
        f'pods "{pod}" is forbidden: exceeded quota: {QUOTA_NAME}, requested: {figure}={requested}, '
        f"used: {figure}={used}, limited: {figure}={limited}"
    )


def quota_changes(nufi: httpx.Client, project: str) -> list[dict[str, Any]]:
    """The audit's records of the project's quota changes, oldest first."""
    response = nufi.get("/api/v1/admin/audit", params={"target_id": project})
    assert response.status_code == 200, response.text
    items = [item for item in response.json()["items"] if item["action"] == "project.quota.set"]
    return sorted(items, key=lambda item: int(item["id"]))
