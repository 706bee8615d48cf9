"""A pod as the kubelet leaves it, shared by the patch tests."""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.patching.merge_keys import merge_keys_for

POD_KEYS = merge_keys_for("Pod")


def kubelet_pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "finalizers": ["a"]},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "nginx",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 80}],
                },
                {"name": "sidecar", "image": "envoy"},
            ],
            "tolerations": [{"key": "x", "operator": "Exists"}],
            "readinessGates": [{"conditionType": "example.com/one"}],
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "PodScheduled", "status": "True"},
                {"type": "Initialized", "status": "True"},
                {"type": "ContainersReady", "status": "True"},
                {"type": "Ready", "status": "False"},
            ],
        },
    }


def condition_types(pod: dict[str, Any]) -> list[str]:
    return [c["type"] for c in pod["status"]["conditions"]]
