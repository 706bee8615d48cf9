"""The only code that speaks to Kubernetes."""

from nufi.cluster.connection import KubeSource
from nufi.cluster.gateway import KUBERNETES, ClusterGateway
from nufi.cluster.state import ClusterState, read_cluster_state

__all__ = ["KUBERNETES", "ClusterGateway", "ClusterState", "KubeSource", "read_cluster_state"]
