"""The sandbox's world: which nodes exist, what accelerators they carry and which exporter describes them.

GPU and NPU nodes advertise their resource as static node capacity, the way a vendor device plugin
would leave it. The LPU nodes start with nothing: on two of them `hyperaccel.ai/lpu` comes from a real
mock device plugin process registering with the node's kubelet socket, exactly as on a real cluster; the
third is served by the mock DRA driver alone (ResourceSlices, never node capacity), as a cluster in
migration holds both. It is tainted `hyperaccel.ai/lpu=dra:NoSchedule`, so only pods that tolerate it
land there and workloads that asked for LPUs before keep the device plugin nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

LPU_RESOURCE = "hyperaccel.ai/lpu"


@dataclass(frozen=True)
class ExporterRole:
    """How one vendor's exporter is installed: its DaemonSet name, namespace and scrape style.

    `honor_labels=False` is what a Prometheus Operator ServiceMonitor does: the target's own `pod` and
    `namespace` win, and the exporter's labels of the same names become `exported_pod` and
    `exported_namespace`. The other exporters keep their labels and name their own pod differently.
    """

    job: str
    daemonset: str
    namespace: str
    honor_labels: bool

    def target_labels(self, node: str) -> dict[str, str]:
        pod = f"{self.daemonset}-{node}"
        if self.honor_labels:
            return {"exporter_namespace": self.namespace, "exporter_pod": pod, "node": node}
        return {"namespace": self.namespace, "pod": pod, "container": self.daemonset, "node": node}


DCGM = ExporterRole("dcgm-exporter", "nvidia-dcgm-exporter", "gpu-operator", honor_labels=False)
FURIOSA = ExporterRole("furiosa-metrics-exporter", "furiosa-metrics-exporter", "furiosa-system", True)
RBLN = ExporterRole("rbln-metrics-exporter", "rbln-metrics-exporter", "rbln-system", True)
MOCK_LPU = ExporterRole("mock-lpu-exporter", "mock-lpu-exporter", "mock-lpu", True)


@dataclass(frozen=True)
class SandboxNode:
    """One node of the dev cluster and its accelerators."""

    name: str
    resource_key: str
    devices: int
    profile: str  # the `nufi-mock exporter --profile` that plays this node's vendor exporter
    exporter: ExporterRole
    device_plugin: bool = False  # True: a mock device plugin process provides the resource
    labels: dict[str, str] = field(default_factory=dict)
    dra_model: str | None = None
    """Set: the mock DRA driver serves the node's LPUs as this model, and node capacity has none."""
    taints: tuple[dict[str, str], ...] = ()

    def node_spec(self) -> dict[str, Any]:
        """This node as the dev cluster's nodes file describes it."""
        capacity: dict[str, Any] = {"cpu": 64, "memory": "512Gi"}
        if not self.device_plugin and self.dra_model is None:
            capacity[self.resource_key] = self.devices
        spec: dict[str, Any] = {"name": self.name, "labels": dict(self.labels), "capacity": capacity}
        if self.taints:
            spec["taints"] = [dict(taint) for taint in self.taints]
        return spec


NODES: tuple[SandboxNode, ...] = (
    SandboxNode(
        "gpu-node-1",
        "nvidia.com/gpu",
        8,
        "dcgm",
        DCGM,
        labels={"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"},
    ),
    SandboxNode("npu-node-1", "furiosa.ai/rngd", 8, "furiosa", FURIOSA, labels={"furiosa.ai/npu": "rngd"}),
    SandboxNode("npu-node-2", "rebellions.ai/ATOM", 4, "rbln", RBLN, labels={"rebellions.ai/npu": "atom"}),
    SandboxNode(
        "lpu-node-1",
        LPU_RESOURCE,
        4,
        "lpu",
        MOCK_LPU,
        device_plugin=True,
        labels={"hyperaccel.ai/lpu.present": "true"},
    ),
    SandboxNode(
        "lpu-node-2",
        LPU_RESOURCE,
        4,
        "lpu",
        MOCK_LPU,
        device_plugin=True,
        labels={"hyperaccel.ai/lpu.present": "true"},
    ),
    SandboxNode(
        "lpu-node-3",
        LPU_RESOURCE,
        4,
        "lpu",
        MOCK_LPU,
        labels={"hyperaccel.ai/lpu.present": "true", "hyperaccel.ai/lpu.dra": "true"},
        dra_model="lpu-32g",
        taints=({"key": LPU_RESOURCE, "value": "dra", "effect": "NoSchedule"},),
    ),
)


def nodes_yaml(nodes: tuple[SandboxNode, ...] = NODES) -> str:
    """The dev cluster's nodes file for `nodes`."""
    return yaml.safe_dump({"nodes": [node.node_spec() for node in nodes]}, sort_keys=False)


def plugin_nodes(nodes: tuple[SandboxNode, ...] = NODES) -> list[SandboxNode]:
    return [node for node in nodes if node.device_plugin]


def dra_nodes(nodes: tuple[SandboxNode, ...] = NODES) -> list[SandboxNode]:
    return [node for node in nodes if node.dra_model is not None]
