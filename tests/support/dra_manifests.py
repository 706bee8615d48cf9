"""Upstream-shaped resource.k8s.io/v1 objects: vendors' DeviceClasses and the example driver's slice,
claim and template (kubernetes-sigs/dra-example-driver), for the tests that replay them."""

from __future__ import annotations

import copy
from typing import Any

Obj = dict[str, Any]

# NVIDIA's DRA driver publishes this class; KEP-5004 lets pods ask for it as nvidia.com/gpu.
NVIDIA_SELECTOR = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
EXAMPLE_SELECTOR = "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"


def device_class(name: str, expression: str, extended_resource: str) -> Obj:
    """A DeviceClass as a vendor's DRA driver ships it, with the KEP-5004 name pods may ask for."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {
            "selectors": [{"cel": {"expression": expression}}],
            "extendedResourceName": extended_resource,
        },
    }


NVIDIA_CLASS = device_class("gpu.nvidia.com", NVIDIA_SELECTOR, "nvidia.com/gpu")
# Rebellions tells users to move from the device plugin's rebellions.ai/npu to this class.
REBELLIONS_CLASS = device_class(
    "npu.rebellions.ai", "device.driver == 'npu.rebellions.ai'", "rebellions.ai/npu"
)

# The upstream example driver's slice, claim and template (kubernetes-sigs/dra-example-driver).
EXAMPLE_SLICE: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "kind-worker-gpu.example.com-abcde"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "kind-worker",
        "pool": {"name": "kind-worker", "generation": 0, "resourceSliceCount": 1},
        "devices": [
            {
                "name": f"gpu-{i}",
                "attributes": {
                    "driverVersion": {"version": "1.0.0"},
                    "index": {"int": i},
                    "model": {"string": "LATEST-GPU-MODEL"},
                    "uuid": {"string": f"gpu-18db0e85-99e9-c746-8531-ffeb86328b3{i}"},
                },
                "capacity": {"memory": {"value": "80Gi"}},
            }
            for i in range(8)
        ],
    },
}
EXAMPLE_CLAIM: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "single-gpu", "namespace": "gpu-test1"},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu.example.com",
                        "selectors": [{"cel": {"expression": EXAMPLE_SELECTOR}}],
                    },
                }
            ],
        }
    },
}
EXAMPLE_TEMPLATE: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "multiple-gpus", "namespace": "gpu-test4"},
    "spec": {
        "metadata": {"labels": {"app": "inference"}},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpus",
                        "firstAvailable": [
                            {"name": "big", "deviceClassName": "gpu.example.com", "count": 2},
                            {"name": "small", "deviceClassName": "gpu.example.com"},
                        ],
                    }
                ],
                "constraints": [{"requests": ["gpus"], "matchAttribute": "gpu.example.com/model"}],
                "config": [
                    {
                        "requests": ["gpus/big"],
                        "opaque": {
                            "driver": "gpu.example.com",
                            "parameters": {"sharing": {"strategy": "TimeSlicing"}},
                        },
                    }
                ],
            }
        },
    },
}


def fresh(obj: Obj) -> Obj:
    """A copy a test may change."""
    return copy.deepcopy(obj)
