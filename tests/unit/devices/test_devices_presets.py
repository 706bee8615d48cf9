"""The official presets: real resource keys, metric names, labels and units, all valid PromQL."""

from __future__ import annotations

import promql_parser
import pytest
from pydantic import ValidationError

from nufi.devices.presets import OFFICIAL_PRESETS, is_official, official_preset, official_presets
from nufi.devices.spec import DeviceType
from nufi.devices.units import MemoryUnit


def metric_names(expression: str) -> set[str]:
    found: set[str] = set()

    def visit(node: promql_parser.Expr) -> None:
        if isinstance(node, promql_parser.VectorSelector) and node.name:
            found.add(node.name)

    promql_parser.walk(promql_parser.parse(expression), visit)
    return found


def test_the_three_official_types() -> None:
    assert list(OFFICIAL_PRESETS) == ["nvidia-gpu", "furiosa-rngd", "rebellions-atom"]
    assert all(preset.kind == "official" and preset.enabled for preset in OFFICIAL_PRESETS.values())
    assert {p.resource_key for p in OFFICIAL_PRESETS.values()} == {
        "nvidia.com/gpu",
        "furiosa.ai/rngd",
        "rebellions.ai/ATOM",
    }


@pytest.mark.parametrize("preset", list(OFFICIAL_PRESETS.values()), ids=list(OFFICIAL_PRESETS))
def test_every_expression_parses_and_the_preset_revalidates(preset: DeviceType) -> None:
    for expression in preset.metrics.queries().values():
        promql_parser.parse(expression)
    assert DeviceType.model_validate(preset.model_dump(mode="json")) == preset
    assert set(preset.metrics.queries()) >= {"utilization", "memory_used", "temperature", "power"}


def test_nvidia_uses_dcgm_default_counters_in_mib_and_both_hostname_spellings() -> None:
    nvidia = OFFICIAL_PRESETS["nvidia-gpu"]
    queries = nvidia.metrics.queries()
    assert {k: metric_names(q) for k, q in queries.items()} == {
        "utilization": {"DCGM_FI_DEV_GPU_UTIL"},
        "memory_used": {"DCGM_FI_DEV_FB_USED"},
        "memory_free": {"DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_RESERVED"},
        "temperature": {"DCGM_FI_DEV_GPU_TEMP"},
        "power": {"DCGM_FI_DEV_POWER_USAGE"},
    }
    assert nvidia.metrics.memory is not None and nvidia.metrics.memory.unit == MemoryUnit.MIB
    assert (nvidia.labels.node, nvidia.labels.device) == ("hostname", "gpu")
    assert (nvidia.labels.pod, nvidia.labels.namespace) == ("exported_pod", "exported_namespace")
    assert all('"Hostname"' in q for q in queries.values())
    assert nvidia.fetcher == "nvidia-dcgm"


def test_furiosa_averages_cores_and_reads_legacy_labels() -> None:
    furiosa = OFFICIAL_PRESETS["furiosa-rngd"]
    queries = furiosa.metrics.queries()
    assert metric_names(queries["utilization"]) == {"furiosa_npu_core_utilization"}
    assert queries["utilization"].startswith("avg by (hostname, device) (")
    assert metric_names(queries["memory_used"]) == {"furiosa_npu_dram_usage"}
    assert metric_names(queries["memory_total"]) == {"furiosa_npu_dram_total"}
    assert 'label="peak"' in queries["temperature"] and 'label="rms"' in queries["power"]
    for query in queries.values():
        assert all(f'"{legacy}"' in query for legacy in ("kubernetes_node_name", "kubernetes_pod_name"))
    assert (furiosa.labels.node, furiosa.labels.device) == ("hostname", "device")
    assert furiosa.fetcher == "generic"


def test_rebellions_prefers_new_names_and_falls_back_to_legacy() -> None:
    rebellions = OFFICIAL_PRESETS["rebellions-atom"]
    utilization = promql_parser.parse(rebellions.metrics.utilization)
    assert isinstance(utilization, promql_parser.BinaryExpr)
    assert metric_names(str(utilization.lhs)) == {"rbln_npu_utilization"}
    assert metric_names(str(utilization.rhs)) == {"RBLN_DEVICE_STATUS:UTILIZATION"}
    assert " or " in rebellions.metrics.utilization
    names = set().union(*(metric_names(q) for q in rebellions.metrics.queries().values()))
    assert {"rbln_npu_memory_used", "RBLN_DEVICE_STATUS:DRAM_TOTAL", "RBLN_DEVICE_STATUS:CARD_POWER"} <= names
    assert (rebellions.labels.node, rebellions.labels.device) == ("hostname", "name")


def test_presets_cannot_be_changed_in_place() -> None:
    preset = official_preset("nvidia-gpu")
    assert preset is not None
    with pytest.raises(ValidationError):
        preset.labels.node = "changed"
    edited = preset.model_copy(update={"enabled": False})
    assert not edited.enabled and OFFICIAL_PRESETS["nvidia-gpu"].enabled
    assert official_preset("lpu") is None
    assert is_official("furiosa-rngd") and not is_official("lpu")
    assert [p.id for p in official_presets()] == list(OFFICIAL_PRESETS)
