"""The generated rules, held to Prometheus' own tools: `promtool check rules` accepts every group NuFi
writes (annotations and their templates included), and `promtool test rules` evaluates them over
series shaped like the real exporters', with Prometheus' rule engine and simulated time."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from nufi.alerts.rules import RuleGroup, rule_group
from nufi.alerts.targets import rules_document
from nufi.alerts.thresholds import AlertThresholds
from nufi.devices.presets import official_preset, official_presets
from nufi.devices.spec import DeviceType
from support.lpu_type import LPU_METRICS, lpu_type

PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"


def _lpu(**changes: Any) -> DeviceType:
    return DeviceType.model_validate(lpu_type(**changes) | {"kind": "custom"})


def _lpu_with_health() -> DeviceType:
    metrics = copy.deepcopy(LPU_METRICS) | {"health": "lpu_healthy"}
    return _lpu(id="lpu-h", metrics=metrics)


def _promtool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PROMTOOL, *map(str, args)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "device_type",
    [*official_presets(), _lpu(), _lpu_with_health()],
    ids=lambda t: t.id,
)
def test_every_generated_group_passes_promtool_check_rules(device_type: DeviceType, tmp_path: Path) -> None:
    group = rule_group(device_type, AlertThresholds(), 85.0)
    path = tmp_path / "rules.yml"
    path.write_text(rules_document(group), encoding="utf-8")
    checked = _promtool("check", "rules", path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(group.rule_names)} rules found" in checked.stdout
    # Every mapped quantity has its rule, and both languages their annotations.
    expected = {"hot", "memory", "exporter_down", "missing_device", "breaker_held"}
    if device_type.metrics.health is not None:
        expected.add("unhealthy")
    assert set(group.rule_names) == expected
    for rule in group.document["rules"]:
        assert set(rule["annotations"]) == {"summary", "description", "summary_ko", "description_ko"}


def _behaviour(tmp_path: Path, group: RuleGroup, series: list[dict[str, str]], tests: list[Any]) -> None:
    """Evaluate `group` over `series` (15 s apart) and hold it to `tests` (alert_rule_test entries)."""
    # Annotations are held to `check rules` above; here the labels and the timing are the subject.
    document = copy.deepcopy(group.document)
    for rule in document["rules"]:
        rule.pop("annotations")
    (tmp_path / "rules.yml").write_text(yaml.safe_dump({"groups": [document]}), encoding="utf-8")
    unit = {
        "rule_files": ["rules.yml"],
        "evaluation_interval": "15s",
        "tests": [{"interval": "15s", "input_series": series, "alert_rule_test": tests}],
    }
    (tmp_path / "test.yml").write_text(yaml.safe_dump(unit), encoding="utf-8")
    outcome = _promtool("test", "rules", tmp_path / "test.yml")
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr


def _alert(name: str, rule: str, severity: str, type_id: str, **labels: str) -> dict[str, Any]:
    return {
        "exp_labels": {"device_type": type_id, "nufi_alert": rule, "severity": severity, **labels},
    }


def _capacity(node: str, devices: int, replica: str = "nufi-0") -> dict[str, str]:
    return {
        "series": f'nufi_device_capacity{{device_type="lpu",node="{node}",resource="hyperaccel.ai/lpu",'
        f'job="nufi",instance="{replica}"}}',
        "values": f"{devices}x40",
    }


def test_lpu_rules_fire_for_the_hot_device_with_its_pod_and_only_after_their_hold(tmp_path: Path) -> None:
    thresholds = AlertThresholds.model_validate({"hot": {"for_seconds": 60}, "memory": {"for_seconds": 60}})
    group = rule_group(_lpu(), thresholds, 85.0)
    held = 'node="lpu-node-1",device="0",pod="chat-0",namespace="team-a",job="mock-lpu",instance="a:1"'
    idle = 'node="lpu-node-1",device="1",job="mock-lpu",instance="a:1"'
    series = [
        {"series": f"lpu_temperature_celsius{{{held}}}", "values": "95x40"},
        {"series": f"lpu_temperature_celsius{{{idle}}}", "values": "84x40"},
        {"series": f"lpu_memory_used_bytes{{{held}}}", "values": "96x40"},
        {"series": f"lpu_memory_total_bytes{{{held}}}", "values": "100x40"},
        {"series": f"lpu_memory_used_bytes{{{idle}}}", "values": "10x40"},
        {"series": f"lpu_memory_total_bytes{{{idle}}}", "values": "100x40"},
    ]
    device = {"node": "lpu-node-1", "device": "0", "pod": "chat-0", "namespace": "team-a"}
    tests = [
        # Pending, not firing, before the hold has passed.
        {"eval_time": "30s", "alertname": "NuFiDeviceHot", "exp_alerts": []},
        {
            "eval_time": "2m",
            "alertname": "NuFiDeviceHot",
            "exp_alerts": [_alert("NuFiDeviceHot", "hot", "critical", "lpu", **device)],
        },
        {
            "eval_time": "2m",
            "alertname": "NuFiDeviceMemoryNearlyFull",
            "exp_alerts": [_alert("NuFiDeviceMemoryNearlyFull", "memory", "warning", "lpu", **device)],
        },
    ]
    _behaviour(tmp_path, group, series, tests)


def test_a_node_missing_devices_or_reporting_none_fires_once_whatever_the_nufi_replicas(
    tmp_path: Path,
) -> None:
    thresholds = AlertThresholds.model_validate(
        {"exporter_down": {"for_seconds": 60}, "missing_device": {"for_seconds": 60}}
    )
    group = rule_group(_lpu(), thresholds, 85.0)
    reporting = [
        {"series": f'lpu_utilization_percent{{node="lpu-node-1",device="{d}"}}', "values": "10x40"}
        for d in range(3)
    ]
    series = [
        *reporting,
        # Two NuFi replicas serve the same capacity.
        _capacity("lpu-node-1", 4, "nufi-0"),
        _capacity("lpu-node-1", 4, "nufi-1"),
        _capacity("lpu-node-2", 4),
        _capacity("lpu-node-3", 0),
    ]
    tests = [
        {
            "eval_time": "3m",
            "alertname": "NuFiDeviceMissing",
            "exp_alerts": [
                _alert("NuFiDeviceMissing", "missing_device", "warning", "lpu", node="lpu-node-1")
            ],
        },
        {
            "eval_time": "3m",
            "alertname": "NuFiExporterDown",
            "exp_alerts": [_alert("NuFiExporterDown", "exporter_down", "critical", "lpu", node="lpu-node-2")],
        },
    ]
    _behaviour(tmp_path, group, series, tests)


def test_dcgm_gpus_fire_with_their_workload_never_the_exporters_pod_and_blanks_never_fire(
    tmp_path: Path,
) -> None:
    gpu = official_preset("nvidia-gpu")
    assert gpu is not None
    thresholds = AlertThresholds.model_validate({"hot": {"for_seconds": 0}, "memory": {"for_seconds": 0}})
    group = rule_group(gpu, thresholds, 85.0)
    # honor_labels: false, as a ServiceMonitor scrapes: the target's pod is the exporter's own.
    target = (
        'Hostname="gpu-node-1",pod="nvidia-dcgm-exporter-x7k2p",namespace="gpu-operator",'
        'container="nvidia-dcgm-exporter"'
    )
    idle = f'gpu="0",UUID="GPU-a",{target}'
    held = f'gpu="1",UUID="GPU-b",{target},exported_pod="llm-0",exported_namespace="team-a"'
    blank = f'gpu="2",UUID="GPU-c",{target}'
    series = [
        {"series": f"DCGM_FI_DEV_GPU_TEMP{{{idle}}}", "values": "90x10"},
        {"series": f"DCGM_FI_DEV_GPU_TEMP{{{held}}}", "values": "91x10"},
        {"series": f"DCGM_FI_DEV_GPU_TEMP{{{blank}}}", "values": "2147483632x10"},
        {"series": f"DCGM_FI_DEV_FB_USED{{{held}}}", "values": "97x10"},
        {"series": f"DCGM_FI_DEV_FB_FREE{{{held}}}", "values": "3x10"},
    ]
    hot = "NuFiDeviceHot"
    tests = [
        {
            "eval_time": "1m",
            "alertname": hot,
            "exp_alerts": [
                _alert(hot, "hot", "critical", "nvidia-gpu", node="gpu-node-1", device="0"),
                _alert(
                    hot,
                    "hot",
                    "critical",
                    "nvidia-gpu",
                    node="gpu-node-1",
                    device="1",
                    pod="llm-0",
                    namespace="team-a",
                ),
            ],
        },
        {
            "eval_time": "1m",
            "alertname": "NuFiDeviceMemoryNearlyFull",
            "exp_alerts": [
                _alert(
                    "NuFiDeviceMemoryNearlyFull",
                    "memory",
                    "warning",
                    "nvidia-gpu",
                    node="gpu-node-1",
                    device="1",
                    pod="llm-0",
                    namespace="team-a",
                )
            ],
        },
    ]
    _behaviour(tmp_path, group, series, tests)


def test_the_hot_temperature_follows_the_trip_unless_set_and_a_switched_off_rule_is_absent(
    tmp_path: Path,
) -> None:
    series = [{"series": 'lpu_temperature_celsius{node="n",device="0"}', "values": "80x10"}]
    fired = [_alert("NuFiDeviceHot", "hot", "critical", "lpu", node="n", device="0")]
    at_trip_78 = rule_group(_lpu(), AlertThresholds.model_validate({"hot": {"for_seconds": 0}}), 78.0)
    _behaviour(
        tmp_path, at_trip_78, series, [{"eval_time": "1m", "alertname": "NuFiDeviceHot", "exp_alerts": fired}]
    )
    own_90 = AlertThresholds.model_validate({"hot": {"celsius": 90.0, "for_seconds": 0}})
    quiet = [{"eval_time": "1m", "alertname": "NuFiDeviceHot", "exp_alerts": []}]
    _behaviour(tmp_path, rule_group(_lpu(), own_90, 78.0), series, quiet)
    off = AlertThresholds.model_validate({"hot": {"enabled": False}})
    assert "hot" not in rule_group(_lpu(), off, 78.0).rule_names


def test_an_unhealthy_device_fires_where_health_is_mapped(tmp_path: Path) -> None:
    group = rule_group(
        _lpu_with_health(), AlertThresholds.model_validate({"unhealthy": {"for_seconds": 0}}), 85.0
    )
    series = [
        {"series": 'lpu_healthy{node="n",device="0"}', "values": "1x10"},
        {"series": 'lpu_healthy{node="n",device="1"}', "values": "0x10"},
    ]
    fired = [_alert("NuFiDeviceUnhealthy", "unhealthy", "critical", "lpu-h", node="n", device="1")]
    _behaviour(
        tmp_path,
        group,
        series,
        [{"eval_time": "1m", "alertname": "NuFiDeviceUnhealthy", "exp_alerts": fired}],
    )


def test_a_held_breaker_fires_once_per_type_whatever_the_nufi_replicas(tmp_path: Path) -> None:
    group = rule_group(_lpu(), AlertThresholds(), 85.0)
    series = [
        {"series": f'nufi_protection_breaker_held{{device_type="lpu",instance="{r}"}}', "values": v}
        for r, v in (("nufi-0", "0 1x10"), ("nufi-1", "0 0x10"))
    ]
    fired = [_alert("NuFiProtectionBreakerHeld", "breaker_held", "warning", "lpu")]
    tests = [
        {"eval_time": "0m", "alertname": "NuFiProtectionBreakerHeld", "exp_alerts": []},
        {"eval_time": "1m", "alertname": "NuFiProtectionBreakerHeld", "exp_alerts": fired},
    ]
    _behaviour(tmp_path, group, series, tests)
