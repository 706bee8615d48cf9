"""A Kubernetes refusal turned into the domain error a caller of NuFi can act on."""

from __future__ import annotations

from nufi.cluster import KUBERNETES
from nufi.cluster.kube_rest import KubeRefused
from nufi.errors import Conflict, DependencyUnavailable, NotFound, NufiError, ValidationFailed


def refused(exc: KubeRefused, *, field: str | None = None) -> NufiError:
    if exc.status == 404:
        return NotFound(f"Kubernetes: {exc.message}")
    if exc.status == 409:
        return Conflict(f"Kubernetes: {exc.message}", field=field)
    if exc.status in (400, 422):
        return ValidationFailed(f"Kubernetes refused the object: {exc.message}", field=field)
    if exc.status in (401, 403):
        return DependencyUnavailable(
            f"Kubernetes refused NuFi's credentials (HTTP {exc.status}): {exc.message}; grant NuFi's "
            "service account the rights deploy/ describes",
            dependency=KUBERNETES,
        )
    return DependencyUnavailable(
        f"Kubernetes answered HTTP {exc.status}: {exc.message}", dependency=KUBERNETES
    )
