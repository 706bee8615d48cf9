"""The only code that speaks to Kubernetes."""

from nufi.cluster.connection import KubeSource
from nufi.cluster.gateway import KUBERNETES, ClusterGateway

__all__ = ["KUBERNETES", "ClusterGateway", "KubeSource"]
