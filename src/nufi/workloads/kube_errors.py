"""A Kubernetes refusal turned into the domain error a caller of NuFi can act on.

The translation lives with every other reading of Kubernetes' answers, in `nufi.cluster.kube_errors`;
`refused` is its name for the workloads that import it from here.
"""

from __future__ import annotations

from nufi.cluster.kube_errors import refusal_error as refused

__all__ = ["refused"]
