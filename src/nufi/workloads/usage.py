"""Which workloads hold a device type, found by the `nufi.io/device-type` label on what NuFi made."""

from __future__ import annotations

import re

from nufi.cluster import ClusterGateway
from nufi.cluster.kube_rest import api_path, list_items
from nufi.workloads.labels import DEVICE_TYPE, MANAGED_BY, MANAGED_BY_NUFI, WORKLOAD, WORKLOAD_KIND

# The objects a workload is made of that outlive their pods: deployments, and labs (a Notebook, or a
# StatefulSet when Kubeflow is not installed).
_OWNERS = (("apps/v1", "deployments"), ("apps/v1", "statefulsets"), ("kubeflow.org/v1", "notebooks"))
# What a label value may be: an id outside it cannot be on any object, so nothing uses it.
_LABEL_VALUE = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")


class WorkloadDeviceUsage:
    """Implements `nufi.devices.usage.DeviceTypeUsage` for the catalog."""

    def __init__(self, cluster: ClusterGateway) -> None:
        self._cluster = cluster

    async def users_of(self, device_type_id: str) -> list[str]:
        if not self._cluster.configured or not device_type_id or not _LABEL_VALUE.fullmatch(device_type_id):
            return []
        selector = f"{MANAGED_BY}={MANAGED_BY_NUFI},{DEVICE_TYPE}={device_type_id}"
        found: set[str] = set()
        for group_version, plural in _OWNERS:
            items = await list_items(
                self._cluster, api_path(group_version, plural), label_selector=selector, missing_ok=True
            )
            for item in items:
                metadata = item.get("metadata") or {}
                labels = metadata.get("labels") or {}
                kind = labels.get(WORKLOAD_KIND) or plural
                name = labels.get(WORKLOAD) or metadata.get("name")
                found.add(f"{metadata.get('namespace')}/{kind}/{name}")
        return sorted(found)
