"""FuriosaAI RNGD: the `furiosa.ai/rngd` device plugin and furiosa-metrics-exporter.

Utilization is reported per core only (`core="0"`..`"7"`), so it is the mean over all cores of a
card, grouped by node and card alone: on a partitioned card the cores of each partition carry that
partition's pod, and grouping by every label would give one mean per partition.

Device-wise metrics (temperature, power, DRAM; `core` is a range such as `0-7`) appear once for the
whole card without pod labels and, on a partitioned card, again per assigned partition (`core="0-3"`
with the pod's labels) with identical values. The expressions keep all of them: readings join the
series of one (node, device) into one device, whose value is the highest (the whole card's, which
the partitions repeat) and whose pod is the first one a series names (a partition's), so a card is
counted once and still attributed.

Exporters before March 2025 named the node, pod and namespace `kubernetes_node_name`,
`kubernetes_pod_name` and `kubernetes_namespace_name`; each expression copies those into the current
names, so one label mapping serves both generations and no vendor code is needed.
"""

from __future__ import annotations

from nufi.devices.spec import GENERIC_FETCHER, DeviceType, Labels, Memory, Metrics, ThermalDefaults
from nufi.devices.units import MemoryUnit
from nufi.prom.promql import aggregate, copy_label

LEGACY_LABELS = {
    "hostname": "kubernetes_node_name",
    "pod": "kubernetes_pod_name",
    "namespace": "kubernetes_namespace_name",
}


def _current_labels(expression: str) -> str:
    for current, legacy in LEGACY_LABELS.items():
        expression = copy_label(expression, current, legacy)
    return expression


PRESET = DeviceType(
    id="furiosa-rngd",
    name="FuriosaAI RNGD",
    vendor="FuriosaAI",
    kind="official",
    resource_key="furiosa.ai/rngd",
    labels=Labels(node="hostname", device="device", pod="pod", namespace="namespace"),
    metrics=Metrics(
        utilization=aggregate("avg", _current_labels("furiosa_npu_core_utilization"), ("hostname", "device")),
        memory=Memory(
            mode="used_total",
            used=_current_labels("furiosa_npu_dram_usage"),
            total=_current_labels("furiosa_npu_dram_total"),
            unit=MemoryUnit.BYTES,
        ),
        temperature=_current_labels('furiosa_npu_hw_temperature{label="peak"}'),
        power=_current_labels('furiosa_npu_hw_power{label="rms"}'),
        health=_current_labels("furiosa_npu_alive"),
    ),
    thermal=ThermalDefaults(threshold_celsius=85.0, recover_celsius=75.0, sustain_seconds=30),
    fetcher=GENERIC_FETCHER,
)
