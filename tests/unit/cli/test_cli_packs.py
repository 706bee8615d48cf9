"""`nufi devices export | apply | diff` against the device packs API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from nufi.packs import dump_packs
from unit.cli.conftest import FakeServer

pytestmark = pytest.mark.unit

DOC = {
    "apiVersion": "nufi.io/v1",
    "kind": "DeviceType",
    "metadata": {"name": "lpu"},
    "spec": {"vendor": "Acme"},
}
OTHER = {**DOC, "metadata": {"name": "npu"}}
APPLIED = {
    "dry_run": True,
    "results": [
        {
            "name": "lpu",
            "action": "updated",
            "changes": [{"path": "alerts.temperature_celsius", "before": 80, "after": 85}],
        },
        {"name": "npu", "action": "unchanged", "changes": []},
    ],
}


def _apply(server: FakeServer, answer: dict[str, Any]) -> None:
    server.handler = lambda request: httpx.Response(200, json=answer)


def test_export_prints_the_canonical_yaml_of_the_pack(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = lambda request: httpx.Response(200, json=DOC)
    result = run("devices", "export", "lpu")
    assert result.exit_code == 0 and result.stdout == dump_packs([DOC])
    assert server.requests[0].url.path == "/api/v1/admin/devices/lpu/pack"


def test_apply_sends_every_yaml_file_of_a_directory(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "a.yaml").write_text(dump_packs([DOC]))
    (tmp_path / "b.yml").write_text(dump_packs([OTHER]))
    (tmp_path / "notes.txt").write_text("not a pack")
    _apply(server, {**APPLIED, "dry_run": False})
    result = run("devices", "apply", "-f", str(tmp_path), "--prune", "--force")
    assert result.exit_code == 0, result.output
    (request,) = server.requests
    assert request.url.path == "/api/v1/admin/device-packs/apply"
    assert json.loads(request.content) == {
        "documents": [DOC, OTHER],
        "dry_run": False,
        "force": True,
        "prune": True,
    }
    assert "lpu: updated" in result.stdout and "1 updated, 1 unchanged" in result.stdout


def test_diff_is_a_dry_run_that_shows_each_change_and_exits_0(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    pack = tmp_path / "lpu.yaml"
    pack.write_text(dump_packs([DOC]))
    _apply(server, APPLIED)
    result = run("devices", "diff", "-f", str(pack))
    assert result.exit_code == 0
    assert json.loads(server.requests[0].content)["dry_run"] is True
    assert (
        "alerts.temperature_celsius" in result.stdout and "- 80" in result.stdout and "+ 85" in result.stdout
    )


def test_an_invalid_pack_is_a_usage_error_before_any_call(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "bad.yaml").write_text("a: [unclosed\n")
    result = run("devices", "apply", "-f", str(tmp_path / "bad.yaml"))
    assert result.exit_code == 2 and "bad.yaml" in result.stderr
    assert server.requests == []


def test_a_pack_of_nested_aliases_is_a_usage_error_naming_the_line(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    levels = ["x0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
    levels += [f"x{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 10)]
    (tmp_path / "bomb.yaml").write_text("\n".join([*levels, "bomb: *a9", ""]))
    result = run("devices", "diff", "-f", str(tmp_path / "bomb.yaml"))
    assert result.exit_code == 2, result.output
    assert "bomb.yaml" in result.stderr and "anchor or alias (line 1, column 5)" in result.stderr
    assert server.requests == []


def test_a_directory_without_packs_is_a_usage_error(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    assert run("devices", "apply", "-f", str(tmp_path)).exit_code == 2
    assert server.requests == []


def test_diff_with_exit_code_tells_drift_from_none(
    server: FakeServer, run: Callable[..., Any], tmp_path: Path
) -> None:
    pack = tmp_path / "lpu.yaml"
    pack.write_text(dump_packs([DOC]))
    _apply(server, APPLIED)
    assert run("devices", "diff", "-f", str(pack), "--exit-code").exit_code == 1
    _apply(server, {"dry_run": True, "results": [{"name": "lpu", "action": "unchanged", "changes": []}]})
    assert run("devices", "diff", "-f", str(pack), "--exit-code").exit_code == 0
