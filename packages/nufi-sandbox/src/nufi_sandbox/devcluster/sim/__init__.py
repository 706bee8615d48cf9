"""The dev cluster's simulated control loops: scheduler, kubelets and the workload controllers."""

from nufi_sandbox.devcluster.sim.nodes import (
    NodeSpec,
    NodeSpecError,
    TaintSpec,
    default_node_specs,
    load_node_specs,
    node_object,
    parse_node_specs,
)
from nufi_sandbox.devcluster.sim.simulation import Simulation

__all__ = [
    "NodeSpec",
    "NodeSpecError",
    "Simulation",
    "TaintSpec",
    "default_node_specs",
    "load_node_specs",
    "node_object",
    "parse_node_specs",
]
