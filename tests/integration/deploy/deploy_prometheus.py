"""Running the example scrape config without a cluster: pods stand in for Kubernetes discovery.

Prometheus applies `relabel_configs` to the `__meta_kubernetes_*` labels of each discovered target.
Static targets may carry the same labels, so replacing each `kubernetes_sd_configs` block with one
static target per fake pod runs the unchanged relabeling and `honor_labels` on a real Prometheus.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FakePod:
    """What Kubernetes discovery (role: pod) reports for one container port of one pod."""

    namespace: str
    name: str
    node: str
    controller_kind: str
    controller_name: str
    container: str
    port_number: int
    port_name: str
    labels: tuple[tuple[str, str], ...] = ()

    def meta_labels(self) -> dict[str, str]:
        meta = {
            "__meta_kubernetes_namespace": self.namespace,
            "__meta_kubernetes_pod_name": self.name,
            "__meta_kubernetes_pod_node_name": self.node,
            "__meta_kubernetes_pod_controller_kind": self.controller_kind,
            "__meta_kubernetes_pod_controller_name": self.controller_name,
            "__meta_kubernetes_pod_container_name": self.container,
            "__meta_kubernetes_pod_container_port_number": str(self.port_number),
            "__meta_kubernetes_pod_container_port_name": self.port_name,
        }
        for key, value in self.labels:
            sanitized = "".join(c if c.isalnum() else "_" for c in key)
            meta[f"__meta_kubernetes_pod_label_{sanitized}"] = value
        return meta


def simulate_discovery(
    config: dict[str, Any], pods: Sequence[tuple[FakePod, str]], scrape_interval: str = "1s"
) -> dict[str, Any]:
    """`config` with every kubernetes_sd_configs replaced by the given (pod, address) targets.

    A discovery limited to some namespaces only sees the pods in them. Intervals are shortened so
    the test does not wait for the production ones.
    """
    simulated = copy.deepcopy(config)
    simulated["global"] = {**simulated.get("global", {}), "scrape_interval": scrape_interval}
    simulated["global"]["scrape_timeout"] = scrape_interval
    for job in simulated["scrape_configs"]:
        job.pop("scrape_interval", None)
        job.pop("scrape_timeout", None)
        static: list[dict[str, Any]] = []
        for discovery in job.pop("kubernetes_sd_configs"):
            assert discovery["role"] == "pod", "only pod discovery is simulated"
            names = discovery.get("namespaces", {}).get("names")
            for pod, address in pods:
                if names is None or pod.namespace in names:
                    static.append({"targets": [address], "labels": pod.meta_labels()})
        job["static_configs"] = static
    return simulated
