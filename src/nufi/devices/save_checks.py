"""The wizard's checks, run again when a device type is saved, and what the audit record keeps of them."""

from __future__ import annotations

from typing import Any

from nufi.cluster import ClusterReader
from nufi.devices.checks import MetricsCheck, check_metrics, check_resource_key, enforce_query_bounds
from nufi.devices.fetcher import DeviceFetcher
from nufi.devices.spec import DeviceType
from nufi.errors import DependencyUnavailable, ValidationFailed
from nufi.messages import MessageModel
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
    warnings: list[MessageModel] = []
    presence = await check_resource_key(device_type.resource_key, cluster)
    if not presence.found:
        if not force:
            raise ValidationFailed(
                code="save.resource_key_absent",
                params={"check": presence.said.model_dump()},
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
        bypassed += _metric_problems(metrics, force=force)
        for name, result in metrics.results.items():
            warnings += [
                MessageModel(code="save.metric_warning", params={"metric": name, "warning": w.model_dump()})
                for w in result.warning_messages
            ]
    return {
        "force": force,
        "bypassed": bypassed,
        "warnings": [warning.text("en") for warning in warnings],
        # The same warnings as messages (`{code, params}`), for a face to word in its reader's language.
        "warning_messages": [warning.model_dump() for warning in warnings],
    }


def _metric_problems(metrics: MetricsCheck, *, force: bool) -> list[str]:
    """What the metric check found wrong, in English for the audit record; without `force`, the first
    expression (then the label mapping) with a problem is refused."""
    bypassed: list[str] = []
    for name, result in metrics.results.items():
        errors = ([result.error_message] if result.error_message else []) + [
            MessageModel(code="save.label_lacking", params={"label": label})
            for label in result.missing_labels
        ]
        if errors and not force:
            raise ValidationFailed(
                code="save.metric_failed",
                params={"metric": name, "problems": [error.model_dump() for error in errors]},
                field=f"metrics.{name}",
            )
        bypassed += [f"{name}: {error.text('en')}" for error in errors]
    labels = [
        MessageModel(code="save.label_problem", params={"label": key, "problem": why.model_dump()})
        for key, why in metrics.label_error_messages.items()
    ]
    if labels and not force:
        raise ValidationFailed(
            code="save.labels_invalid",
            params={"problems": [label.model_dump() for label in labels]},
            field="labels",
        )
    return bypassed + [label.text("en") for label in labels]
