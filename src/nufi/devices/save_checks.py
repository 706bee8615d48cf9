"""The wizard's checks, run again when a device type is saved, and what the audit record keeps of them."""

from __future__ import annotations

from typing import Any

from nufi.cluster import ClusterReader
from nufi.devices.checks import check_metrics, check_resource_key, enforce_query_bounds
from nufi.devices.fetcher import DeviceFetcher
from nufi.devices.spec import DeviceType
from nufi.errors import DependencyUnavailable, ValidationFailed
from nufi.prom import PrometheusGateway
from nufi.prom.errors import PrometheusUnavailable


async def checks_on_save(
    device_type: DeviceType,
    fetcher: DeviceFetcher,
    cluster: ClusterReader,
    prometheus: PrometheusGateway,
    *,
    force: bool,
) -> dict[str, Any]:
    """The wizard's checks, run again on save; `force` lets an admin save what they cannot pass yet.

    Prometheus being unreachable is a 503 naming it, not a fault of the expressions; with `force`
    the save goes ahead and the audit record says the metrics were not checked. The bounds on
    what an expression may cost Prometheus hold even with `force`."""
    bypassed: list[str] = []
    warnings: list[str] = []
    presence = await check_resource_key(device_type.resource_key, cluster)
    if not presence.found:
        if not force:
            raise ValidationFailed(
                f"{presence.message} Install its device plugin first, or save with ?force=true.",
                field="resource_key",
                resource_key=device_type.resource_key,
            )
        bypassed.append(presence.message)
    try:
        await enforce_query_bounds(
            device_type.metrics, prometheus, prometheus.admin_limits, raise_unavailable=True
        )
        metrics = await check_metrics(
            device_type.labels,
            device_type.metrics,
            prometheus,
            usable=fetcher.usable,
            raise_unavailable=True,
        )
    except (PrometheusUnavailable, DependencyUnavailable) as exc:
        if not force:
            raise
        bypassed.append(f"metrics not checked: {exc}")
    else:
        for name, result in metrics.results.items():
            warnings += [f"{name}: {w}" for w in result.warnings]
            errors = ([result.error] if result.error else []) + [
                f"series lack the label {label!r}" for label in result.missing_labels
            ]
            if errors and not force:
                raise ValidationFailed(
                    f"metrics.{name}: " + "; ".join(errors) + " (or save with ?force=true)",
                    field=f"metrics.{name}",
                )
            bypassed += [f"{name}: {e}" for e in errors]
        label_errors = [f"labels.{key}: {why}" for key, why in metrics.label_errors.items()]
        if label_errors and not force:
            raise ValidationFailed("; ".join(label_errors), field="labels")
        bypassed += label_errors
    return {"force": force, "bypassed": bypassed, "warnings": warnings}
