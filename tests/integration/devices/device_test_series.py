"""Series in the shapes real exporters emit, for the device tests' Prometheus.

LPU: the mock LPU exporter's four metrics. DCGM: released (`Hostname`) and newer (`hostname`)
exporters side by side, one GPU running a pod, one unreadable sensor. Furiosa: current and pre-2025
label names, per-core utilization. Rebellions: new `rbln_npu_*` and legacy `RBLN_DEVICE_STATUS:*` names.
"""

from __future__ import annotations

from .device_test_exporter import Series

GiB = 1024**3
MiB = 1024**2
BLANK = 9223372036854775794.0


def lpu(name: str, node: str, device: str, value: float, **pod: str) -> Series:
    return Series(name, {"node": node, "device": device, **pod}, value)


ALLOCATED = {"pod": "llm-0", "namespace": "serving"}
LPU_SERIES = [
    lpu("lpu_utilization_percent", "lpu-a", "lpu0", 42.5, **ALLOCATED),
    lpu("lpu_utilization_percent", "lpu-a", "lpu1", 0.0),
    lpu("lpu_utilization_percent", "lpu-b", "lpu0", 97.0),
    lpu("lpu_memory_used_bytes", "lpu-a", "lpu0", 8 * GiB, **ALLOCATED),
    lpu("lpu_memory_used_bytes", "lpu-a", "lpu1", 0.0),
    lpu("lpu_memory_used_bytes", "lpu-b", "lpu0", 1 * GiB),
    *(
        lpu("lpu_memory_total_bytes", n, d, 16 * GiB)
        for n, d in (("lpu-a", "lpu0"), ("lpu-a", "lpu1"), ("lpu-b", "lpu0"))
    ),
    lpu("lpu_temperature_celsius", "lpu-a", "lpu0", 61.0, **ALLOCATED),
    lpu("lpu_temperature_celsius", "lpu-a", "lpu1", 38.5),
    lpu("lpu_temperature_celsius", "lpu-b", "lpu0", 79.0),
]


def gpu(name: str, host: tuple[str, str], index: str, value: float, **pod: str) -> Series:
    labels = {
        "gpu": index,
        "UUID": f"GPU-{host[1]}-{index}",
        "device": f"nvidia{index}",
        "modelName": "NVIDIA H100",
    }
    return Series(name, {**labels, host[0]: host[1], **pod}, value)


OLD_1 = ("Hostname", "gpu-1")  # released exporters
NEW_2 = ("hostname", "gpu-2")  # newer exporters
TRAINER = {"pod": "trainer-0", "namespace": "ml", "container": "main"}
DCGM_SERIES = [
    gpu("DCGM_FI_DEV_GPU_UTIL", OLD_1, "0", 87.0, **TRAINER),
    gpu("DCGM_FI_DEV_GPU_UTIL", OLD_1, "1", 0.0),
    gpu("DCGM_FI_DEV_GPU_UTIL", NEW_2, "0", 12.0),
    gpu("DCGM_FI_DEV_FB_USED", OLD_1, "0", 30000.0, **TRAINER),
    gpu("DCGM_FI_DEV_FB_USED", OLD_1, "1", 0.0),
    gpu("DCGM_FI_DEV_FB_USED", NEW_2, "0", 512.0),
    gpu("DCGM_FI_DEV_FB_FREE", OLD_1, "0", 51920.0, **TRAINER),
    gpu("DCGM_FI_DEV_FB_FREE", OLD_1, "1", 81920.0),
    gpu("DCGM_FI_DEV_FB_FREE", NEW_2, "0", 80000.0),
    gpu("DCGM_FI_DEV_GPU_TEMP", OLD_1, "0", 71.0, **TRAINER),
    gpu("DCGM_FI_DEV_GPU_TEMP", OLD_1, "1", 33.0),
    gpu("DCGM_FI_DEV_GPU_TEMP", NEW_2, "0", BLANK),  # DCGM could not read this sensor
    gpu("DCGM_FI_DEV_POWER_USAGE", OLD_1, "0", 245.5, **TRAINER),
    gpu("DCGM_FI_DEV_POWER_USAGE", OLD_1, "1", 60.25),
    gpu("DCGM_FI_DEV_POWER_USAGE", NEW_2, "0", 71.0),
]


def rngd(name: str, current: bool, value: float, **extra: str) -> Series:
    if current:
        labels = {"hostname": "npu-1", "device": "npu0", "pod": "vllm-0", "namespace": "ai"}
    else:  # exporters before March 2025
        labels = {
            "kubernetes_node_name": "npu-2",
            "device": "npu1",
            "kubernetes_pod_name": "old-0",
            "kubernetes_namespace_name": "legacy",
        }
    return Series(name, {"arch": "rngd", **labels, **extra}, value)


def atom(name: str, node: str, device: str, value: float) -> Series:
    return Series(name, {"hostname": node, "name": device, "card": "RBLN-CA12"}, value)


VENDOR_SERIES = [
    *(rngd("furiosa_npu_core_utilization", True, 10.0 * (core + 1), core=str(core)) for core in range(8)),
    *(
        rngd("furiosa_npu_core_utilization", False, 100.0 if core < 4 else 0.0, core=str(core))
        for core in range(8)
    ),
    rngd("furiosa_npu_dram_usage", True, 12e9, core="0-7"),
    rngd("furiosa_npu_dram_total", True, 48e9, core="0-7"),
    rngd("furiosa_npu_dram_usage", False, 1e9, core="0-7"),
    rngd("furiosa_npu_dram_total", False, 48e9, core="0-7"),
    rngd("furiosa_npu_hw_temperature", True, 55.0, label="peak"),
    rngd("furiosa_npu_hw_temperature", True, 40.0, label="ambient"),
    rngd("furiosa_npu_hw_temperature", False, 66.0, label="peak"),
    rngd("furiosa_npu_hw_temperature", False, 30.0, label="ambient"),
    rngd("furiosa_npu_hw_power", True, 120.0, label="rms"),
    rngd("furiosa_npu_hw_power", False, 90.0, label="rms"),
    atom("rbln_npu_utilization", "atom-1", "rbln0", 33.0),
    atom("rbln_npu_memory_used", "atom-1", "rbln0", 4e9),
    atom("rbln_npu_memory_total", "atom-1", "rbln0", 16e9),
    atom("rbln_npu_temperature", "atom-1", "rbln0", 48.0),
    atom("rbln_npu_power", "atom-1", "rbln0", 70.0),
    atom("RBLN_DEVICE_STATUS:UTILIZATION", "atom-2", "rbln1", 21.0),
    atom("RBLN_DEVICE_STATUS:DRAM_USED", "atom-2", "rbln1", 2e9),
    atom("RBLN_DEVICE_STATUS:DRAM_TOTAL", "atom-2", "rbln1", 16e9),
    atom("RBLN_DEVICE_STATUS:TEMPERATURE", "atom-2", "rbln1", 52.0),
    atom("RBLN_DEVICE_STATUS:CARD_POWER", "atom-2", "rbln1", 65.0),
]
