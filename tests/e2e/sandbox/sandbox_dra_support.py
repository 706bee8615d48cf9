"""The sandbox's DRA node as a user meets it: `kubectl get resourceslices`, a pod asking for LPUs by
`limits` pinned to a node, its answer through a Service, and the exporter's pod labels."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import httpx

from support.polling import poll

DRA_NODE = "lpu-node-3"
MODEL = "mock-lpu-llm"


def kubectl(state: dict[str, Any], home: str, *args: str) -> str:
    kubectl_path = shutil.which("kubectl")
    assert kubectl_path is not None
    done = subprocess.run(
        [kubectl_path, "--kubeconfig", str(state["kubeconfig"]), "--request-timeout=10s", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": home, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def pinned_pod(name: str, node: str, lpus: int) -> dict[str, Any]:
    """The mock inference server asking for `lpus` LPUs by limits, on `node`, tolerating LPU taints."""
    container = {
        "name": "infer",
        "image": "nufi-mock:0.1.0",
        "args": ["inference", "--model", MODEL],
        "ports": [{"containerPort": 8000}],
        "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 1},
        "resources": {"limits": {"hyperaccel.ai/lpu": str(lpus)}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": node},
            "tolerations": [{"key": "hyperaccel.ai/lpu", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [container],
        },
    }


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 8000, "targetPort": 8000}]},
    }


def ready_pod(kube: httpx.Client, name: str) -> dict[str, Any]:
    def ready() -> dict[str, Any] | None:
        pod: dict[str, Any] = kube.get(f"/api/v1/namespaces/default/pods/{name}").json()
        conditions = {c["type"]: c["status"] for c in pod.get("status", {}).get("conditions") or []}
        return pod if conditions.get("Ready") == "True" else None

    return poll(ready, 60, 0.25, f"pod {name} Ready")


def served_by(kube: httpx.Client, name: str) -> dict[str, Any]:
    """Who answered a completion through the Service (the mock names its pod, node and devices)."""
    path = f"/api/v1/namespaces/default/services/{name}:8000/proxy/v1/completions"
    answer = kube.post(path, json={"model": MODEL, "prompt": "who", "max_tokens": 2})
    assert answer.status_code == 200, answer.text
    served: dict[str, Any] = answer.json()["nufi"]
    return served


def attributed(metrics_url: str, pod: str) -> set[str]:
    """The devices the node's exporter labels with `pod`."""
    lines = httpx.get(metrics_url, timeout=5).text.splitlines()
    return {
        line.split('device="', 1)[1].split('"', 1)[0]
        for line in lines
        if line.startswith("lpu_utilization_percent{") and f'pod="{pod}"' in line
    }


def wait_attributed(metrics_url: str, pod: str, devices: set[str]) -> None:
    poll(lambda: attributed(metrics_url, pod) == devices, 15, 0.25, f"{pod} holding {devices} in the metrics")


def slices_of(state: dict[str, Any], home: str) -> list[dict[str, Any]]:
    listed = json.loads(kubectl(state, home, "get", "resourceslices", "-o", "json"))["items"]
    return list(listed)
