"""Upstream-shaped DRA objects for the validation tests, and a check that runs what admission runs."""

from __future__ import annotations

import copy
from typing import Any

from nufi_sandbox.devcluster.dra.objects import default_dra_object
from nufi_sandbox.devcluster.validation.objects import format_invalid_message, validate_object

Obj = dict[str, Any]
NAMESPACED = {
    "DeviceClass": False,
    "ResourceSlice": False,
    "ResourceClaim": True,
    "ResourceClaimTemplate": True,
}

# NVIDIA's DRA driver publishes this class; KEP-5004 lets pods ask for it as nvidia.com/gpu.
NVIDIA_SELECTOR = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
EXAMPLE_SELECTOR = "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"
NVIDIA_CLASS: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.nvidia.com"},
    "spec": {
        "selectors": [{"cel": {"expression": NVIDIA_SELECTOR}}],
        "extendedResourceName": "nvidia.com/gpu",
    },
}
REBELLIONS_CLASS: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "npu.rebellions.ai"},
    "spec": {
        "selectors": [{"cel": {"expression": "device.driver == 'npu.rebellions.ai'"}}],
        "extendedResourceName": "rebellions.ai/npu",
    },
}
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
    return copy.deepcopy(obj)


def causes(obj: Obj, old: Obj | None = None) -> list[tuple[str, str]]:
    """(field, message) of every cause the API server lists, after its defaulting, as admission runs it."""
    kind = obj["kind"]
    default_dra_object(kind, obj)
    found = validate_object(kind, obj, NAMESPACED[kind], old)
    return [(c["field"], c["message"]) for c in found]


def refusal(obj: Obj, old: Obj | None = None) -> str:
    """The 422 Status message kube-apiserver writes for `obj`."""
    kind = obj["kind"]
    default_dra_object(kind, obj)
    found = validate_object(kind, obj, NAMESPACED[kind], old)
    return format_invalid_message(kind, obj["metadata"]["name"], found, "resource.k8s.io")
