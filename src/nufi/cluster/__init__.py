"""The only code that speaks to Kubernetes."""

from nufi.cluster.connection import KubeSource
from nufi.cluster.gateway import KUBERNETES, ClusterGateway
from nufi.cluster.reader import ClusterReader
from nufi.cluster.state import ClusterState, list_cluster_state

__all__ = [
    "KUBERNETES",
    "ClusterGateway",
    "ClusterReader",
    "ClusterState",
    "KubeSource",
    "list_cluster_state",
]
