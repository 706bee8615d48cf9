"""Settings of one exporter process and the parsing of its repeatable options."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nufi_mock.kubelet_api import DEFAULT_POD_RESOURCES_SOCKET

from .hardware import ThermalModel
from .profiles import Naming

_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_NODE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
NODE_PLACEHOLDER = "{node}"
# The control token comes from the environment only: a command line is readable by every user.
CONTROL_TOKEN_ENV = "NUFI_MOCK_CONTROL_TOKEN"


class ConfigError(ValueError):
    """An option value cannot be used; the message names the option and says what to write."""


@dataclass(frozen=True)
class ExporterConfig:
    profile: str = "lpu"
    nodes: tuple[str, ...] = ("node-1",)
    devices_per_node: int = 4
    numa_nodes: int = 2
    host: str = "0.0.0.0"
    port: int | None = None
    interval: float = 1.0
    seed: int = 0
    pod_resources: Mapping[str, Path] = field(default_factory=dict)
    resource_patterns: tuple[str, ...] = ()
    """Empty: the profile's own."""
    label_names: Mapping[str, str] = field(default_factory=dict)
    naming: Naming = Naming.CURRENT
    # Reproduce what real exporters of the profile's vendor emit beyond their documentation.
    quirks: bool = False
    memory_bytes: int | None = None
    thermal: ThermalModel = field(default_factory=ThermalModel)
    control_token: str | None = field(default=None, repr=False)
    """The bearer token `/control/override` and `/control/absent` require (None: they are open)."""


def parse_nodes(text: str) -> tuple[str, ...]:
    """``a,b`` -> ("a", "b"); names must be Kubernetes node names and appear once."""
    nodes = tuple(part.strip() for part in text.split(",") if part.strip())
    if not nodes:
        raise ConfigError("--nodes: give at least one node name, e.g. --nodes lpu-node-1,lpu-node-2")
    for node in nodes:
        if len(node) > 253 or not _NODE_NAME.match(node):
            raise ConfigError(f"--nodes: {node!r} is not a node name (lowercase letters, digits, '-', '.')")
    repeated = sorted({node for node in nodes if nodes.count(node) > 1})
    if repeated:
        raise ConfigError(f"--nodes: {', '.join(repeated)} listed more than once")
    return nodes


def parse_label_names(values: Iterable[str]) -> dict[str, str]:
    """``FROM=TO`` pairs renaming emitted labels, e.g. ``node=kubernetes_node``."""
    renames: dict[str, str] = {}
    for value in values:
        source, sep, target = value.partition("=")
        source, target = source.strip(), target.strip()
        if not sep or not source or not target:
            raise ConfigError(f"--label-name: {value!r} must look like FROM=TO, e.g. node=kubernetes_node")
        for name in (source, target):
            if not _LABEL_NAME.match(name) or name.startswith("__"):
                raise ConfigError(
                    f"--label-name: {name!r} is not a usable label name "
                    "(letters, digits, '_', not starting with a digit or '__')"
                )
        if source in renames:
            raise ConfigError(f"--label-name: {source!r} is renamed twice")
        renames[source] = target
    targets = list(renames.values())
    clashing = sorted({t for t in targets if targets.count(t) > 1})
    if clashing:
        raise ConfigError(f"--label-name: several labels renamed to {', '.join(clashing)}")
    return renames


def parse_pod_resources(values: Sequence[str], nodes: Sequence[str]) -> dict[str, Path]:
    """Node -> PodResources socket from ``NODE=PATH`` entries and at most one ``PATH`` that is either a
    template containing ``{node}`` or, with a single node, a plain path. Nodes left out get none.
    With no values at all a single node uses the kubelet's default socket."""
    if not values:
        return {nodes[0]: Path(DEFAULT_POD_RESOURCES_SOCKET)} if len(nodes) == 1 else {}
    explicit: dict[str, Path] = {}
    fallback: str | None = None
    for value in values:
        node, sep, path = value.partition("=")
        if sep and "/" not in node and node:
            if node not in nodes:
                raise ConfigError(
                    f"--pod-resources-socket: node {node!r} is not in --nodes ({', '.join(nodes)})"
                )
            if not path:
                raise ConfigError(f"--pod-resources-socket: {value!r} names no path after '='")
            explicit[node] = Path(path)
            continue
        if fallback is not None:
            raise ConfigError(
                "--pod-resources-socket: only one entry without NODE= is allowed; "
                "use NODE=PATH for each node or one template with {node}"
            )
        if NODE_PLACEHOLDER not in value and len(nodes) > 1:
            raise ConfigError(
                f"--pod-resources-socket: {value!r} would be shared by {len(nodes)} nodes; "
                "use NODE=PATH or a template such as /state/nodes/{node}/pod-resources/kubelet.sock"
            )
        fallback = value
    sockets = {node: Path(fallback.replace(NODE_PLACEHOLDER, node)) for node in nodes if fallback is not None}
    return sockets | explicit
