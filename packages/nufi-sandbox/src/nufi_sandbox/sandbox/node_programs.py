"""The programs that hand a node's LPUs to its kubelet: a device plugin, or a DRA driver (with the
DeviceClass it ships, applied once), each with the question that says it is ready."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from nufi_mock.dra import device_class
from nufi_sandbox.processes import ManagedProcess
from nufi_sandbox.sandbox import components
from nufi_sandbox.sandbox.errors import SandboxError
from nufi_sandbox.sandbox.readiness import Readiness
from nufi_sandbox.sandbox.topology import SandboxNode, dra_nodes, plugin_nodes


@dataclass(frozen=True)
class NodeProgram:
    node: SandboxNode
    process: ManagedProcess
    dra: bool

    def ready(
        self, ready: Readiness, kube_api_url: str, headers: Mapping[str, str]
    ) -> Callable[[], Awaitable[bool]]:
        question = ready.dra_slices_published if self.dra else ready.device_plugin_registered
        return partial(question, kube_api_url, self.node, headers)

    @property
    def ready_text(self) -> str:
        if self.dra:
            return f"published: {self.node.name} has {self.node.devices} LPUs in its ResourceSlices"
        return f"registered: {self.node.name} has {self.node.devices} {self.node.resource_key}"


def apply_device_class(kube_api_url: str, headers: Mapping[str, str]) -> None:
    """Create the driver's DeviceClass; one left by an earlier run in the same state stays."""
    url = f"{kube_api_url}/apis/resource.k8s.io/v1/deviceclasses"
    answer = httpx.post(url, json=device_class(), headers=dict(headers), timeout=10.0)
    if answer.status_code not in (201, 409):
        raise SandboxError(
            f"the dev cluster refused the DeviceClass: {answer.status_code} {answer.text[:300]}"
        )


def start_node_programs(
    nodes: tuple[SandboxNode, ...],
    sockets: Mapping[str, Any],
    kube: tuple[str, str, Mapping[str, str]],
    logs: Path,
) -> list[NodeProgram]:
    """Start each device plugin and DRA driver of `nodes`; `kube` is the API's url, token and headers."""
    url, token, headers = kube
    started = [
        NodeProgram(
            node, components.device_plugin(node, Path(sockets[node.name]["device_plugin_dir"]), logs), False
        )
        for node in plugin_nodes(nodes)
    ]
    if dra_nodes(nodes):
        apply_device_class(url, headers)
    started += [
        NodeProgram(node, components.dra_driver(node, sockets[node.name], url, token, logs), True)
        for node in dra_nodes(nodes)
    ]
    for program in started:
        program.process.start()
    return started
