"""Upstream-shaped DRA objects for the fidelity tests: the vendors' DeviceClasses as their charts render
them, and ResourceSlices as each driver publishes its devices (the mock LPU's by its own code)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import yaml

from nufi_mock.dra.config import MODELS
from nufi_mock.dra.slices import pool_slices
from nufi_mock.inventory import mock_devices
from unit.devcluster.dra.dra_objects import resource_slice

Obj = dict[str, Any]
REPO = Path(__file__).resolve().parents[4]
LPU = "lpu.hyperaccel.ai"
NVIDIA = "gpu.nvidia.com"
REBELLIONS = "npu.rebellions.ai"

NODES = textwrap.dedent("""\
    nodes:
      - {name: gpu-node, device_plugins: false}
      - {name: npu-node, device_plugins: false}
      - {name: lpu-node-a, device_plugins: false}
      - {name: lpu-node-b, device_plugins: false}
    """)

# kubernetes-sigs/dra-driver-nvidia-gpu, templates/deviceclass-gpu.yaml rendered for resource.k8s.io/v1;
# RBLN-SW/rbln-k8s-dra-driver, templates/deviceclass-npu.yaml rendered with its default driver name.
VENDOR_CLASSES = textwrap.dedent("""\
    apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: gpu.nvidia.com
    spec:
      selectors:
      - cel:
          expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
      extendedResourceName: nvidia.com/gpu
    ---
    apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: npu.rebellions.ai
    spec:
      selectors:
      - cel:
          expression: 'device.driver == "npu.rebellions.ai"'
      extendedResourceName: rebellions.ai/npu
    """)
LPU_CLASS = (REPO / "deploy" / "mock-lpu" / "dra-deviceclass.yaml").read_text()


def _slice(driver: str, node: str, devices: list[Obj]) -> Obj:
    """A node's whole pool in one slice, typed for kubectl, which needs the kind in what it sends."""
    built = resource_slice(devices, name=f"{node}-{driver}", pool=node, driver=driver, nodeName=node)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", **built}


def nvidia_slice() -> Obj:
    """Two whole A100s and one MIG slice of a third, named and typed as NVIDIA's plugin names them."""

    def gpu(name: str, kind: str, memory: str) -> Obj:
        attributes = {
            "type": {"string": kind},
            "uuid": {"string": f"GPU-{name}"},
            "productName": {"string": "NVIDIA A100-SXM4-80GB"},
            "architecture": {"string": "Ampere"},
            "cudaComputeCapability": {"version": "8.0.0"},
            "driverVersion": {"version": "550.54.15"},
        }
        return {"name": name, "attributes": attributes, "capacity": {"memory": {"value": memory}}}

    devices = [
        gpu("gpu-0", "gpu", "80Gi"),
        gpu("gpu-1", "gpu", "80Gi"),
        gpu("gpu-2-mig-9-0-1", "mig", "10Gi"),
    ]
    return _slice(NVIDIA, "gpu-node", devices)


def rebellions_slice() -> Obj:
    devices = [
        {
            "name": f"rbln{i}",
            "attributes": {"productName": {"string": "RBLN-CA25"}, "uuid": {"string": f"rbln-uuid-{i}"}},
            "capacity": {"memory": {"value": "64Gi"}},
        }
        for i in range(4)
    ]
    return _slice(REBELLIONS, "npu-node", devices)


def lpu_slices() -> list[Obj]:
    """lpu-node-a: four 32 GiB LPUs on NUMA nodes 0,0,1,1; lpu-node-b: four 64 GiB ones."""
    devices = mock_devices(4, numa_nodes=2)
    return [
        *pool_slices("lpu-node-a", devices, MODELS["lpu-32g"], generation=1),
        *pool_slices("lpu-node-b", devices, MODELS["lpu-64g"], generation=1),
    ]


def as_yaml(*objects: Obj) -> str:
    return yaml.safe_dump_all(objects, sort_keys=False)


def exactly(count: int = 1, device_class: str = LPU, *selectors: str) -> Obj:
    request: Obj = {"deviceClassName": device_class, "count": count}
    if selectors:
        request["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return request


def model_is(name: str) -> str:
    return f"device.attributes['{LPU}'].model == '{name}'"


def claim(name: str, *requests: Obj, constraints: list[Obj] | None = None) -> Obj:
    """A ResourceClaim of named requests (`{"name": ..., "exactly": ...}` or `firstAvailable`)."""
    devices: Obj = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": devices},
    }


def pod(name: str, claims: dict[str, Obj] | None = None, limits: dict[str, str] | None = None) -> Obj:
    """A pod whose one container uses every claim entry in `claims` (entry name: its source)."""
    resources: Obj = {"limits": limits} if limits else {}
    spec: Obj = {"containers": [{"name": "app", "image": "busybox:1.36", "resources": resources}]}
    if claims:
        spec["resourceClaims"] = [{"name": entry, **source} for entry, source in claims.items()]
        resources["claims"] = [{"name": entry} for entry in claims]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}
