"""NuFi's check of alert templates against Prometheus' own (`promtool check rules`): the rules of types
with names that break templates pass both, and templates promtool refuses are refused by NuFi too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from nufi.alerts.go_template import TemplateError, check_template
from nufi.alerts.rule_check import refusal_of
from nufi.alerts.rules import rule_group
from nufi.alerts.targets import rules_document
from nufi.alerts.thresholds import AlertThresholds
from nufi.devices.spec import DeviceType
from support.lpu_type import lpu_type

PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
TRICKY_NAMES = [
    "HyperAccel {{ LPU",
    "LPU }} {{",
    "{{- x -}}",
    '{{ query "up" }}',
    "{{ define `x` }}",
    "back`tick \"quote' and \\ slash",
    "하이퍼엑셀 {{ LPU 가속기",
    "line\nbreak {{",
    "ends with {",
    "{{{{",
    "$labels.node {{ $value }}",
    "/* not a comment {{/* */}}",
]
# Templates Prometheus refuses; NuFi's check must refuse each before writing it.
BROKEN = [
    "HyperAccel LPU {{ device {{ $labels.device }}",
    "{{ nodes }}",
    "{{ $undeclared }}",
    "{{ if $value }}open",
    "{{ end }}",
    '{{ "unterminated }}',
    "{{ humanize$value }}",
    "{{ $value | 3 }}",
    "{{ (humanize 1 }}",
    "{{ 'ab' }}",
]


def _promtool(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", TRICKY_NAMES)
def test_rules_of_a_type_with_a_tricky_name_pass_promtool(name: str, tmp_path: Path) -> None:
    group = rule_group(
        DeviceType.model_validate(lpu_type(name=name) | {"kind": "custom"}), AlertThresholds(), 85.0
    )
    assert refusal_of(group) is None
    path = tmp_path / "rules.yml"
    path.write_text(rules_document(group), encoding="utf-8")
    checked = _promtool(path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("template", BROKEN)
def test_what_promtool_refuses_nufi_refuses(template: str, tmp_path: Path) -> None:
    for place in ("annotations", "labels"):
        rule = {"alert": "NuFiDeviceHot", "expr": "up", place: {"summary": template}}
        path = tmp_path / f"{place}.yml"
        path.write_text(yaml.safe_dump({"groups": [{"name": "g", "rules": [rule]}]}), encoding="utf-8")
        assert _promtool(path).returncode != 0, (place, template)
    with pytest.raises(TemplateError):
        check_template(template)
