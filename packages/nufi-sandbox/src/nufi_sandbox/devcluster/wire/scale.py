"""The `scale` subresource of workloads: an autoscaling/v1 Scale view, and writes through it."""

from __future__ import annotations

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.storage.store import Obj, Store
from nufi_sandbox.devcluster.wire.routing import Target


def scale_of(obj: Obj) -> Obj:
    """The autoscaling/v1 Scale view of a workload."""
    spec = obj.get("spec", {})
    selector = spec.get("selector", {}) or {}
    labels = selector.get("matchLabels", {}) if isinstance(selector, dict) else {}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: obj["metadata"][k]
            for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if k in obj["metadata"]
        },
        "spec": {"replicas": spec.get("replicas", 0)},
        "status": {
            "replicas": obj.get("status", {}).get("replicas", 0),
            "selector": ",".join(f"{k}={v}" for k, v in sorted(labels.items())),
        },
    }


def write_scale(store: Store, t: Target, scale: Obj, dry_run: bool) -> Obj:
    """PUT or PATCH of the scale subresource: only `spec.replicas` changes, checked like the server."""
    replicas = scale.get("spec", {}).get("replicas")
    if not isinstance(replicas, int) or replicas < 0:
        raise errors.invalid(
            t.rt,
            t.name,
            f'Scale "{t.name}" is invalid: spec.replicas: Invalid value: '
            f"{replicas!r}: must be greater than or equal to 0",
            [
                {
                    "reason": "FieldValueInvalid",
                    "field": "spec.replicas",
                    "message": "must be greater than or equal to 0",
                }
            ],
        )
    current = store.get(t.rt, t.namespace or "", t.name)
    wanted_rv = scale.get("metadata", {}).get("resourceVersion")
    if wanted_rv and wanted_rv != current["metadata"]["resourceVersion"]:
        raise errors.conflict(t.rt, t.name)
    current["spec"]["replicas"] = replicas
    updated = store.update(t.rt, t.namespace or "", t.name, current, dry_run=dry_run)
    return scale_of(updated)
