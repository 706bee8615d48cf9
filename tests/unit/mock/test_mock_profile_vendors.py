"""Vendor profiles against interop-facts: DCGM (§2.2-2.3), Furiosa (§3.2), RBLN (§4.2)."""

from __future__ import annotations

import re

import pytest

from nufi_mock.exporter.hardware import GIB, MIB
from nufi_mock.exporter.profiles import Naming, make_profile
from nufi_mock.exporter.profiles.dcgm import MIG_PODS, exporter_pod
from nufi_mock.exporter.readings import DeviceIdentity, Reading

from .profile_helpers import OWNER, exposition, named, reading, scrape

POD_LABELS = {"pod", "namespace", "container"}


# -- DCGM ---------------------------------------------------------------------------------------------


def test_dcgm_default_counters_and_units() -> None:
    profile = make_profile("dcgm")
    series = scrape(profile, [reading(0)])
    names = {name for name, _, _ in series}
    for name in (
        "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_FB_FREE",
        "DCGM_FI_DEV_FB_USED",
        "DCGM_FI_DEV_GPU_TEMP",
        "DCGM_FI_DEV_POWER_USAGE",
    ):
        assert name in names
    assert "DCGM_FI_DEV_FB_TOTAL" not in names  # not a default counter
    value = {name: v for name, _, v in series}
    assert value["DCGM_FI_DEV_GPU_UTIL"] == 50  # percent 0-100, not a ratio
    assert value["DCGM_FI_DEV_FB_USED"] == 3 * 1024  # MiB
    # Without FB_TOTAL, the device's memory is FREE + USED + RESERVED.
    total_mib = 16 * 1024
    assert value["DCGM_FI_DEV_FB_USED"] + value["DCGM_FI_DEV_FB_FREE"] + value["DCGM_FI_DEV_FB_RESERVED"] == (
        total_mib
    )
    assert value["DCGM_FI_DEV_FB_RESERVED"] == profile.hardware.memory_reserved_bytes / MIB
    assert value["DCGM_FI_DEV_GPU_TEMP"] == 61
    assert value["DCGM_FI_DEV_POWER_USAGE"] == 123.45  # watts


def test_dcgm_labels_and_pod_labels_only_when_allocated() -> None:
    series = named(
        scrape(make_profile("dcgm"), [reading(0, owner=OWNER), reading(1)]), "DCGM_FI_DEV_GPU_TEMP"
    )
    by_gpu = {labels["gpu"]: labels for _, labels, _ in series}
    uuid = DeviceIdentity("node-a", 0, 0).uuid
    assert by_gpu["0"]["UUID"] == f"GPU-{uuid}"
    assert by_gpu["0"]["device"] == "nvidia0" and by_gpu["1"]["device"] == "nvidia1"
    assert by_gpu["0"]["modelName"] == "NVIDIA A100-SXM4-80GB"
    assert by_gpu["0"]["Hostname"] == "node-a"
    assert by_gpu["0"]["pci_bus_id"].startswith("00000000:")
    assert "DCGM_FI_DRIVER_VERSION" in by_gpu["0"]
    assert {k: by_gpu["0"][k] for k in POD_LABELS} == {
        "pod": "infer-0",
        "namespace": "team-a",
        "container": "server",
    }
    assert not POD_LABELS & set(by_gpu["1"])


def test_dcgm_legacy_uses_old_namespace_labels() -> None:
    [(_, labels, _)] = named(
        scrape(make_profile("dcgm", Naming.LEGACY), [reading(0, owner=OWNER)]), "DCGM_FI_DEV_GPU_UTIL"
    )
    assert {"uuid", "pod_name", "pod_namespace", "container_name"} <= set(labels)
    assert not {"UUID", "pod", "namespace", "container"} & set(labels)


def test_dcgm_override_targets_convert_mib() -> None:
    targets = make_profile("dcgm").override_targets()
    assert targets["DCGM_FI_DEV_FB_USED"].factor == MIB
    assert targets["DCGM_FI_DEV_GPU_TEMP"].quantity.value == "temperature"


def quirky_dcgm(*readings: Reading) -> dict[tuple[str, str], dict[str, str]]:
    """The quirky profile's DCGM_FI_DEV_GPU_TEMP labels by (node, gpu[/instance])."""
    series = named(scrape(make_profile("dcgm", quirks=True), list(readings)), "DCGM_FI_DEV_GPU_TEMP")
    return {(labels.get("node", labels["Hostname"]), gpu_key(labels)): labels for _, labels, _ in series}


def gpu_key(labels: dict[str, str]) -> str:
    return labels["gpu"] + (f"/{labels['GPU_I_ID']}" if "GPU_I_ID" in labels else "")


def test_dcgm_quirks_label_idle_gpus_with_the_exporters_own_pod() -> None:
    # GPU 2, the highest on the first node, is the MIG-partitioned one.
    by_gpu = quirky_dcgm(reading(0, owner=OWNER), reading(1), reading(2), reading(0, node="node-b"))
    assert {k: by_gpu["node-a", "0"][k] for k in POD_LABELS} == {
        "pod": "infer-0",
        "namespace": "team-a",
        "container": "server",
    }
    idle = by_gpu["node-a", "1"]
    assert (idle["namespace"], idle["container"]) == ("gpu-operator", "nvidia-dcgm-exporter")
    assert idle["pod"] == exporter_pod("node-a")
    assert re.fullmatch(r"nvidia-dcgm-exporter-[a-z0-9]{5}", idle["pod"])
    assert exporter_pod("node-a") != exporter_pod("node-b")
    # Without quirks, an idle GPU has no pod labels at all.
    plain = named(scrape(make_profile("dcgm"), [reading(1)]), "DCGM_FI_DEV_GPU_TEMP")
    assert not POD_LABELS & set(plain[0][1])


def test_dcgm_quirks_misname_the_last_node_and_label_it_node() -> None:
    two_each = [reading(i, node=node) for node in ("node-a", "node-b") for i in (0, 1)]
    by_gpu = quirky_dcgm(*two_each)
    assert by_gpu["node-a", "0"]["Hostname"] == "node-a" and "node" not in by_gpu["node-a", "0"]
    for gpu in ("0", "1"):
        misnamed = by_gpu["node-b", gpu]
        assert misnamed["Hostname"] == exporter_pod("node-b") and misnamed["node"] == "node-b"


def test_dcgm_quirks_partition_one_gpu_into_two_mig_instances_held_by_two_pods() -> None:
    profile = make_profile("dcgm", quirks=True)
    series = scrape(profile, [reading(0, owner=OWNER), reading(1), reading(0, node="node-b")])
    temps = named(series, "DCGM_FI_DEV_GPU_TEMP")
    keys = sorted((labels["Hostname"], gpu_key(labels)) for _, labels, _ in temps)
    assert keys == sorted(
        [("node-a", "0"), ("node-a", "1/1"), ("node-a", "1/2"), (exporter_pod("node-b"), "0")]
    )
    instances = {labels["GPU_I_ID"]: labels for _, labels, _ in temps if "GPU_I_ID" in labels}
    assert {labels["GPU_I_PROFILE"] for labels in instances.values()} == {"3g.40gb"}
    assert [(i["namespace"], i["pod"]) for _, i in sorted(instances.items())] == [
        (pod.namespace, pod.pod) for pod in MIG_PODS
    ]
    # Each instance holds half the card: its used, free and reserved add up to half the memory.
    memory: dict[str, float] = {}
    for name, labels, value in series:
        if labels.get("GPU_I_ID") == "1" and name.startswith("DCGM_FI_DEV_FB_"):
            memory[name] = value
    assert sum(memory.values()) == pytest.approx(8 * 1024, abs=1)
    assert memory["DCGM_FI_DEV_FB_USED"] == 3 * 1024 / 2


def test_dcgm_quirks_read_memory_temperature_0_and_keep_the_reserved_memory() -> None:
    # GPU 1 is the MIG-partitioned one; GPU 0 is a whole card.
    series = scrape(make_profile("dcgm", quirks=True), [reading(0), reading(1)])
    value = {name: v for name, labels, v in series if labels["gpu"] == "0"}
    assert value["DCGM_FI_DEV_MEMORY_TEMP"] == 0 and value["DCGM_FI_DEV_GPU_TEMP"] == 61
    assert value["DCGM_FI_DEV_FB_RESERVED"] == 567
    assert {v for name, _, v in series if name == "DCGM_FI_DEV_MEMORY_TEMP"} == {0}
    plain = {name: v for name, _, v in scrape(make_profile("dcgm"), [reading(0)])}
    assert plain["DCGM_FI_DEV_MEMORY_TEMP"] == 65


def test_dcgm_quirks_keep_the_legacy_label_names() -> None:
    series = named(
        scrape(make_profile("dcgm", Naming.LEGACY, quirks=True), [reading(0), reading(1)]),
        "DCGM_FI_DEV_GPU_UTIL",
    )
    by_gpu = {gpu_key(labels): labels for _, labels, _ in series}
    assert sorted(by_gpu) == ["0", "1/1", "1/2"]
    assert by_gpu["0"]["pod_name"] == exporter_pod("node-a") and "pod" not in by_gpu["0"]
    assert by_gpu["1/2"]["pod_name"] == MIG_PODS[1].pod


# -- Furiosa ------------------------------------------------------------------------------------------


def furiosa_series(naming: Naming = Naming.CURRENT) -> list[tuple[str, dict[str, str], float]]:
    return scrape(make_profile("furiosa", naming), [reading(0, owner=OWNER, cores=8), reading(1, cores=8)])


def test_furiosa_per_core_utilization_and_device_wise_metrics() -> None:
    series = furiosa_series()
    util = named(series, "furiosa_npu_core_utilization")
    assert sorted(labels["core"] for _, labels, _ in util if labels["device"] == "npu0") == [
        str(c) for c in range(8)
    ]
    assert {v for _, labels, v in util if labels["device"] == "npu0" and labels["core"] == "3"} == {53.0}
    for name in ("furiosa_npu_dram_total", "furiosa_npu_dram_usage", "furiosa_npu_alive"):
        assert {labels["core"] for _, labels, _ in named(series, name)} == {"0-7"}
    assert {v for _, _, v in named(series, "furiosa_npu_dram_total")} == {16 * GIB}  # bytes
    assert {v for _, _, v in named(series, "furiosa_npu_dram_usage")} == {3 * GIB}
    assert not [name for name, _, _ in series if name.startswith("furiosa_npu_memory")]


def test_furiosa_temperature_and_power_carry_their_label() -> None:
    series = furiosa_series()
    temps = {
        labels["label"]: v
        for _, labels, v in named(series, "furiosa_npu_hw_temperature")
        if labels["device"] == "npu0"
    }
    assert set(temps) == {"peak", "ambient"}
    assert temps["peak"] == 61.4 and temps["ambient"] < temps["peak"]
    power = named(series, "furiosa_npu_hw_power")
    assert {labels["label"] for _, labels, _ in power} == {"rms"}
    assert {v for _, _, v in power} == {123.45}  # watts


def test_furiosa_labels_current_and_legacy() -> None:
    current = named(furiosa_series(), "furiosa_npu_alive")
    held = next(labels for _, labels, _ in current if labels["device"] == "npu0")
    free = next(labels for _, labels, _ in current if labels["device"] == "npu1")
    assert {"arch", "core", "device", "uuid", "hostname"} <= set(held)
    assert held["arch"] == "rngd" and held["hostname"] == "node-a"
    assert {k: held[k] for k in POD_LABELS} == {
        "pod": "infer-0",
        "namespace": "team-a",
        "container": "server",
    }
    assert not POD_LABELS & set(free)
    legacy = named(furiosa_series(Naming.LEGACY), "furiosa_npu_alive")
    old = next(labels for _, labels, _ in legacy if labels["device"] == "npu0")
    assert old["kubernetes_node_name"] == "node-a"
    assert old["kubernetes_pod_name"] == "infer-0"
    assert old["kubernetes_namespace_name"] == "team-a"
    assert old["kubernetes_container_name"] == "server"
    assert not {"hostname", "pod", "namespace", "container"} & set(old)


def test_furiosa_has_no_both_naming() -> None:
    with pytest.raises(ValueError, match="furiosa offers naming current, legacy"):
        make_profile("furiosa", Naming.BOTH)


# -- RBLN ---------------------------------------------------------------------------------------------

NEW = {
    "rbln_npu_temperature",
    "rbln_npu_power",
    "rbln_npu_memory_used",
    "rbln_npu_memory_total",
    "rbln_npu_utilization",
    "rbln_npu_health",
}
LEGACY = {
    "RBLN_DEVICE_STATUS:TEMPERATURE",
    "RBLN_DEVICE_STATUS:CARD_POWER",
    "RBLN_DEVICE_STATUS:DRAM_USED",
    "RBLN_DEVICE_STATUS:DRAM_TOTAL",
    "RBLN_DEVICE_STATUS:UTILIZATION",
    "RBLN_DEVICE_STATUS:HEALTH",
}


@pytest.mark.parametrize(
    ("naming", "expected"), [(Naming.CURRENT, NEW), (Naming.LEGACY, LEGACY), (Naming.BOTH, NEW | LEGACY)]
)
def test_rbln_metric_names_by_naming(naming: Naming, expected: set[str]) -> None:
    assert {name for name, _, _ in scrape(make_profile("rbln", naming), [reading(0)])} == expected


def test_rbln_units_and_health_polarity() -> None:
    value = {name: v for name, _, v in scrape(make_profile("rbln", Naming.BOTH), [reading(0)])}
    assert value["rbln_npu_memory_used"] == value["RBLN_DEVICE_STATUS:DRAM_USED"] == 3 * GIB  # bytes
    assert value["rbln_npu_memory_total"] == 16 * GIB
    assert value["rbln_npu_power"] == value["RBLN_DEVICE_STATUS:CARD_POWER"] == 123.5  # watts
    assert value["rbln_npu_utilization"] == 50.0
    assert value["rbln_npu_health"] == 0  # 0 = healthy


def test_rbln_labels_and_empty_pod_labels_in_kubernetes_mode() -> None:
    series = named(
        scrape(make_profile("rbln"), [reading(0, owner=OWNER), reading(1)]), "rbln_npu_temperature"
    )
    by_name = {labels["name"]: labels for _, labels, _ in series}
    held, free = by_name["rbln0"], by_name["rbln1"]
    assert held["card"] == "RBLN-CA25" and held["deviceID"] == "1250" and held["hostname"] == "node-a"
    assert held["uuid"] == DeviceIdentity("node-a", 0, 0).uuid
    assert {k: held[k] for k in POD_LABELS} == {
        "pod": "infer-0",
        "namespace": "team-a",
        "container": "server",
    }
    text = exposition(make_profile("rbln"), [reading(1)])
    assert 'container="",' in text and 'pod=""' in text  # written empty, dropped by Prometheus
    assert {k: free.get(k) for k in POD_LABELS} == {"pod": "", "namespace": "", "container": ""}


def test_rbln_without_kubernetes_mode_has_no_pod_labels() -> None:
    [(_, labels, _)] = named(scrape(make_profile("rbln"), [reading(0, attribution=False)]), "rbln_npu_power")
    assert not POD_LABELS & set(labels)


def test_rbln_legacy_names_keep_their_colons_in_the_exposition() -> None:
    text = exposition(make_profile("rbln", Naming.LEGACY), [reading(0)])
    assert "\nRBLN_DEVICE_STATUS:TEMPERATURE{" in text
    assert "# TYPE RBLN_DEVICE_STATUS:TEMPERATURE gauge" in text
