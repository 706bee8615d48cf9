"""NVIDIA GPUs: the `nvidia.com/gpu` device plugin and the DCGM exporter's default counters.

Every expression is the DCGM metric under one chain of `label_replace`/`label_join` calls
(`dcgm_series`) that leaves three labels NuFi maps, whatever the exporter version and the scrape's
`honor_labels`:

- **`hostname`, the node.** A target label `node` (or `kubernetes_node`) wins when the series carry
  one: a ServiceMonitor relabeling `__meta_kubernetes_pod_node_name` into it names the node the
  exporter pod runs on, always. Otherwise DCGM's own `Hostname` (released exporters) or `hostname`
  (newer ones), which is the node name only when the exporter runs with `NODE_NAME` set (the Helm
  chart and the GPU Operator set it); without it, it is the exporter pod's hostname, and only the
  target label can find the node.
- **`gpu`, the device:** the GPU index, and `<gpu>/<GPU_I_ID>` for a MIG instance, so each instance
  is a device of its own (with its own pod) rather than collapsing onto its parent GPU.
- **`exported_pod`/`exported_namespace`, the workload.** With `honor_labels: false` (the usual
  ServiceMonitor) Prometheus renames the exporter's `pod`/`namespace`/`container` to `exported_*` and
  the target's (the exporter's own pod) take the plain names; with `honor_labels: true` a GPU held by
  a pod carries that pod in `pod`/`namespace`/`container`, and an idle one the exporter's own pod.
  So: `exported_*` when present, else `pod`/`namespace`/`container`; then no workload at all when
  that container is `nvidia-dcgm-exporter`/`dcgm-exporter` or that pod is named like the exporter's
  DaemonSet pods (`[<prefix>-]dcgm-exporter-xxxxx`). A GPU is never attributed to the exporter.

DCGM has no total-memory counter by default, hence used and free (in MiB), where free counts
`DCGM_FI_DEV_FB_RESERVED` too when the exporter sends it, so that used + free is the card's memory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from nufi.devices.fetcher import GenericFetcher
from nufi.devices.spec import DeviceType, Labels, Memory, MetricKey, Metrics, ThermalDefaults
from nufi.devices.units import MemoryUnit
from nufi.prom.promql import copy_label, quote_label_value

FETCHER_NAME = "nvidia-dcgm"
# DCGM reports a field it could not read as a "blank" sentinel: 0x7ffffff0 and up for 32-bit fields,
# 0x7ffffffffffffff0 and up for 64-bit ones, 2**47 and up for doubles. No real utilization, memory
# (MiB), temperature or power reading comes anywhere near the smallest of them.
DCGM_BLANK_FLOOR = float(0x7FFFFFF0)

# Target labels naming the node, least preferred first (the last one present wins).
NODE_TARGET_LABELS = ("kubernetes_node", "node")
# The exporter's own container and pod: a series that names them is held by no workload.
EXPORTER_CONTAINER = "nvidia-dcgm-exporter|dcgm-exporter"
EXPORTER_POD = "(.+-)?dcgm-exporter-[a-z0-9]{5}"
_EXPORTER_CONTAINER = re.compile(EXPORTER_CONTAINER)
_EXPORTER_POD = re.compile(EXPORTER_POD)
# The workload labels the preset maps, which `DcgmFetcher.label_value` checks again in NuFi.
_WORKLOAD_LABELS = frozenset({"exported_pod", "exported_namespace"})
# A scratch label holding `exported_pod;pod;namespace;container` while the workload is worked out.
_SCRATCH = "nufi_dcgm"


def _replace(expression: str, target: str, replacement: str, source: str, regex: str) -> str:
    """label_replace; an empty replacement removes `target` from the series `regex` matches."""
    arguments = ", ".join(quote_label_value(value) for value in (target, replacement, source, regex))
    return f"label_replace({expression}, {arguments})"


def _join(expression: str, target: str, *sources: str) -> str:
    arguments = ", ".join(quote_label_value(value) for value in (target, ";", *sources))
    return f"label_join({expression}, {arguments})"


def _with_node(expression: str) -> str:
    expression = copy_label(expression, "hostname", "Hostname")
    for label in NODE_TARGET_LABELS:
        expression = copy_label(expression, "hostname", label)
    return expression


def _with_mig_device(expression: str) -> str:
    # `gpu;GPU_I_ID`, then back to `gpu` alone where there is no instance id.
    expression = _join(expression, "gpu", "gpu", "GPU_I_ID")
    expression = _replace(expression, "gpu", "$1/$2", "gpu", "([^;]*);(.+)")
    return _replace(expression, "gpu", "$1", "gpu", "([^;]*);")


def _with_workload(expression: str) -> str:
    # `;pod;namespace;container` exactly when `exported_pod` is absent: only then do the plain names
    # stand in for the exported ones.
    expression = _join(expression, _SCRATCH, "exported_pod", "pod", "namespace", "container")
    expression = _replace(expression, "exported_pod", "$1", _SCRATCH, ";([^;]+);.*")
    expression = _replace(expression, "exported_namespace", "$1", _SCRATCH, ";[^;]*;([^;]+);.*")
    expression = _replace(expression, "exported_container", "$1", _SCRATCH, ";[^;]*;[^;]*;(.+)")
    expression = _replace(expression, "exported_pod", "", "exported_container", EXPORTER_CONTAINER)
    expression = _replace(expression, "exported_pod", "", "exported_pod", EXPORTER_POD)
    # No pod, no namespace: a namespace alone names no workload.
    expression = _replace(expression, "exported_namespace", "", "exported_pod", "")
    return _replace(expression, _SCRATCH, "", _SCRATCH, ".*")


def dcgm_series(expression: str) -> str:
    """`expression` over DCGM series, with the node, device and workload labels NuFi maps."""
    return _with_workload(_with_mig_device(_with_node(expression)))


# The card's free memory as DCGM counts it, plus what the driver reserves when that is exported: the
# two series of one device carry the same labels, so `+` pairs them and `or` keeps the free series of
# exporters that do not send the reserved one.
FREE_WITH_RESERVED = "DCGM_FI_DEV_FB_FREE + DCGM_FI_DEV_FB_RESERVED or DCGM_FI_DEV_FB_FREE"

PRESET = DeviceType(
    id="nvidia-gpu",
    name="NVIDIA GPU",
    vendor="NVIDIA",
    kind="official",
    resource_key="nvidia.com/gpu",
    labels=Labels(node="hostname", device="gpu", pod="exported_pod", namespace="exported_namespace"),
    metrics=Metrics(
        utilization=dcgm_series("DCGM_FI_DEV_GPU_UTIL"),
        memory=Memory(
            mode="used_free",
            used=dcgm_series("DCGM_FI_DEV_FB_USED"),
            free=dcgm_series(FREE_WITH_RESERVED),
            unit=MemoryUnit.MIB,
        ),
        temperature=dcgm_series("DCGM_FI_DEV_GPU_TEMP"),
        power=dcgm_series("DCGM_FI_DEV_POWER_USAGE"),
        # No health: DCGM's default counters have no per-GPU health gauge (XID_ERRORS is the last
        # error code, not a state), and which field a health expression should read is not confirmed;
        # an admin whose exporter exports one maps it in the wizard's step 2.
    ),
    thermal=ThermalDefaults(threshold_celsius=85.0, recover_celsius=75.0, sustain_seconds=30),
    fetcher=FETCHER_NAME,
)


class DcgmFetcher(GenericFetcher):
    """The generic fetcher, minus what DCGM sends for a field it cannot read: its blank sentinels (a
    GPU that cannot read its temperature must not look like it is at 2 billion degrees to the thermal
    controller), and a temperature of exactly 0 °C, which is what fields a card does not support read
    (DCGM_FI_DEV_MEMORY_TEMP on L40S, T4, L4) — not reported, never a reading to act on."""

    def usable(self, metric: MetricKey, value: float) -> bool:
        if metric == "temperature" and value == 0:
            return False
        return super().usable(metric, value) and value < DCGM_BLANK_FLOOR

    def labels_read(self, device_type: DeviceType) -> tuple[str, ...] | None:
        read = super().labels_read(device_type)
        return None if read is None else (*read, "exported_container")

    def label_value(self, labels: Mapping[str, str], name: str) -> str | None:
        """The mapped labels, except that a workload naming the exporter itself (its container or its
        DaemonSet's pod) is no workload. `dcgm_series` removes those already on Prometheus; engines whose
        `label_replace` differs (VictoriaMetrics brings a removed label back in a later step) leave them,
        so the rule is applied again here, on the labels the engine returned, whatever the engine."""
        value = super().label_value(labels, name)
        if name not in _WORKLOAD_LABELS or value is None:
            return value
        pod = labels.get("exported_pod", "")
        container = labels.get("exported_container", "")
        if not pod or _EXPORTER_POD.fullmatch(pod) or _EXPORTER_CONTAINER.fullmatch(container):
            return None
        return value
