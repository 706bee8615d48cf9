"""The simulated nodes: their description in a YAML file and the Node objects a kubelet would register.

```yaml
nodes:
  - name: gpu-1
    labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
    taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    capacity: {cpu: 64, memory: 512Gi, nvidia.com/gpu: 8}
    device_plugins: true   # serve <state>/nodes/gpu-1/device-plugins/kubelet.sock (default)
```
Missing capacity entries take the defaults (cpu 16, memory 64Gi, pods 110, ephemeral-storage 100Gi).
"""

from __future__ import annotations

import re
import uuid
from decimal import InvalidOperation
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from nufi_sandbox.devcluster.sim.meta import now
from nufi_sandbox.devcluster.validation.names import label_value_errors, qualified_name_errors
from nufi_sandbox.devcluster.validation.quantity import parse_quantity

Obj = dict[str, Any]

KUBELET_VERSION = "v1.31.0"
CONTAINER_RUNTIME = "containerd://1.7.22"
DEFAULT_CAPACITY = {"cpu": "16", "memory": "64Gi", "pods": "110", "ephemeral-storage": "100Gi"}
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class NodeSpecError(ValueError):
    """The nodes file cannot be used; the message says where and why."""


class TaintSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    key: str
    value: str = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class NodeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, coerce_numbers_to_str=True)

    name: str
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[TaintSpec] = Field(default_factory=list)
    capacity: dict[str, str] = Field(default_factory=dict)
    device_plugins: bool = Field(
        default=True, validation_alias=AliasChoices("device_plugins", "devicePlugins")
    )
    unschedulable: bool = False
    architecture: str = "amd64"

    @field_validator("name")
    @classmethod
    def _dns_name(cls, value: str) -> str:
        if len(value) > 253 or not _NAME.match(value):
            raise ValueError(
                f"{value!r} is not a valid node name: use lowercase letters, digits, '-' and '.', "
                "starting and ending with a letter or digit"
            )
        return value

    @field_validator("labels", mode="before")
    @classmethod
    def _label_text(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                str(k): "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
                for k, v in value.items()
            }
        return value

    @field_validator("labels")
    @classmethod
    def _valid_labels(cls, value: dict[str, str]) -> dict[str, str]:
        for key, text in value.items():
            problems = [f"key {key!r}: {p}" for p in qualified_name_errors(key)]
            problems += [f"value {text!r} of {key!r}: {p}" for p in label_value_errors(text)]
            if problems:
                raise ValueError("; ".join(problems))
        return value

    @field_validator("capacity", mode="before")
    @classmethod
    def _quantities(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out = {}
        for name, amount in value.items():
            text = str(amount)
            try:
                parse_quantity(text)
            except (ValueError, InvalidOperation):
                raise ValueError(
                    f"capacity {name}: {text!r} is not a quantity (e.g. 8, 500m, 64Gi)"
                ) from None
            out[str(name)] = text
        return out

    def full_capacity(self) -> dict[str, str]:
        return {**DEFAULT_CAPACITY, **self.capacity}


def default_node_specs() -> list[NodeSpec]:
    return [NodeSpec(name=f"node-{i}") for i in (1, 2, 3)]


def parse_node_specs(text: str, *, source: str = "nodes file") -> list[NodeSpec]:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise NodeSpecError(f"{source}: not valid YAML: {exc}") from None
    if isinstance(document, dict) and set(document) == {"nodes"}:
        document = document["nodes"]
    if not isinstance(document, list) or not document:
        raise NodeSpecError(f"{source}: expected a non-empty list of nodes, or a mapping with key 'nodes'")
    specs = []
    for index, item in enumerate(document):
        try:
            specs.append(NodeSpec.model_validate(item))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'node'}: {err['msg']}" for err in exc.errors()
            )
            raise NodeSpecError(f"{source}: node #{index + 1}: {problems}") from None
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise NodeSpecError(f"{source}: node name {spec.name!r} appears twice")
        seen.add(spec.name)
    return specs


def load_node_specs(path: Path | None) -> list[NodeSpec]:
    """The nodes described in ``path``; the three default nodes when there is no file."""
    if path is None:
        return default_node_specs()
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise NodeSpecError(f"cannot read nodes file {path}: {exc.strerror}") from None
    return parse_node_specs(text, source=str(path))


def node_ip(index: int) -> str:
    return f"10.0.0.{index}"


def node_conditions(stamp: str) -> list[Obj]:
    def condition(kind: str, status: str, reason: str, message: str) -> Obj:
        return {
            "type": kind,
            "status": status,
            "lastHeartbeatTime": stamp,
            "lastTransitionTime": stamp,
            "reason": reason,
            "message": message,
        }

    return [
        condition(
            "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"
        ),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]


def node_object(spec: NodeSpec, index: int) -> Obj:
    """The Node a freshly registered kubelet reports; ``index`` numbers its IPs and pod CIDR."""
    stamp = now()
    capacity = spec.full_capacity()
    labels = {
        "beta.kubernetes.io/arch": spec.architecture,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": spec.architecture,
        "kubernetes.io/hostname": spec.name,
        "kubernetes.io/os": "linux",
        **spec.labels,
    }
    node_spec: Obj = {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"]}
    if spec.taints:
        node_spec["taints"] = [t.model_dump(exclude_defaults=True) for t in spec.taints]
    if spec.unschedulable:
        node_spec["unschedulable"] = True
    machine = uuid.uuid5(uuid.NAMESPACE_DNS, f"{spec.name}.devcluster.nufi").hex
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": spec.name,
            "labels": labels,
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": node_spec,
        "status": {
            "capacity": dict(capacity),
            "allocatable": dict(capacity),
            "conditions": node_conditions(stamp),
            "addresses": [
                {"type": "InternalIP", "address": node_ip(index)},
                {"type": "Hostname", "address": spec.name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": machine,
                "systemUUID": str(uuid.UUID(machine)),
                "bootID": str(uuid.uuid4()),
                "kernelVersion": "6.1.0-25-amd64",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "containerRuntimeVersion": CONTAINER_RUNTIME,
                "kubeletVersion": KUBELET_VERSION,
                "kubeProxyVersion": KUBELET_VERSION,
                "operatingSystem": "linux",
                "architecture": spec.architecture,
            },
            "images": [],
        },
    }
