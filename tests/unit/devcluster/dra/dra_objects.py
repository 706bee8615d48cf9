"""Builders of upstream-shaped DRA objects for the allocator's tests."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]
DRIVER = "lpu.hyperaccel.ai"
CLASS = "lpu.hyperaccel.ai"


def node(name: str = "lpu-node-3", **labels: str) -> Obj:
    return {"metadata": {"name": name, "labels": labels}}


def lpu(
    index: int, *, numa: int = 0, memory: str = "32Gi", model: str = "HA-32", firmware: str = "2.1.0"
) -> Obj:
    return {
        "name": f"lpu-{index}",
        "attributes": {
            "model": {"string": model},
            "numaNode": {"int": numa},
            "firmwareVersion": {"version": firmware},
            "uuid": {"string": f"LPU-{index:04d}"},
        },
        "capacity": {"memory": {"value": memory}},
    }


def resource_slice(
    devices: list[Obj],
    *,
    name: str = "lpu-node-3-lpu",
    pool: str = "lpu-node-3",
    generation: int = 1,
    count: int = 1,
    driver: str = DRIVER,
    **where: Any,
) -> Obj:
    placement = where or {"nodeName": "lpu-node-3"}
    spec = {
        "driver": driver,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
        **placement,
        "devices": devices,
    }
    return {"metadata": {"name": name}, "spec": spec}


def device_class(name: str = CLASS, *selectors: str, **spec: Any) -> Obj:
    expressions = selectors or (f"device.driver == '{DRIVER}'",)
    return {
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions], **spec},
    }


def exactly(
    name: str = "lpu", *selectors: str, count: int | None = None, mode: str | None = None, **extra: Any
) -> Obj:
    body: Obj = {"deviceClassName": extra.pop("device_class", CLASS)}
    if selectors:
        body["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if count is not None:
        body["count"] = count
    if mode is not None:
        body["allocationMode"] = mode
    return {"name": name, "exactly": body}


def claim(*requests: Obj, name: str = "claim", constraints: list[Obj] | None = None) -> Obj:
    devices: Obj = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices}}
