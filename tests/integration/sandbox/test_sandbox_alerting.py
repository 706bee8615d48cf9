"""The sandbox's alerting engines for real: Prometheus loads rule files written after it started (on
reload, as NuFi asks), evaluates them and delivers what fires to Alertmanager, which lists it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from nufi_sandbox.alertmanager import AlertmanagerServer
from nufi_sandbox.processes import pid_alive
from nufi_sandbox.prometheus import PrometheusServer
from support.polling import eventually, until

ALWAYS_FIRING = {
    "groups": [
        {
            "name": "nufi-test",
            "rules": [
                {
                    "alert": "NufiAlwaysFiring",
                    "expr": "vector(1)",
                    "for": "0s",
                    "labels": {"severity": "warning", "device_type": "lpu", "node": "lpu-node-1"},
                    "annotations": {"summary": "always firing"},
                }
            ],
        }
    ]
}


async def test_a_rule_file_written_after_start_fires_in_alertmanager_and_nothing_is_left(
    tmp_path: Path,
) -> None:
    rules_dir = tmp_path / "alert-rules"
    rules_dir.mkdir()
    with (
        AlertmanagerServer(work_dir=tmp_path / "alertmanager") as alertmanager,
        PrometheusServer(
            work_dir=tmp_path / "prometheus",
            rule_files=[f"{rules_dir}/*.yml"],
            alertmanagers=[alertmanager.address],
        ) as prometheus,
    ):
        pids, urls = [alertmanager.pid, prometheus.pid], [alertmanager.url, prometheus.url]
        assert await prometheus.rules() == []
        (rules_dir / "nufi-lpu.rules.yml").write_text(yaml.safe_dump(ALWAYS_FIRING))
        prometheus.reload()
        groups = await prometheus.rules()
        assert [(g["name"], [r["name"] for r in g["rules"]]) for g in groups] == [
            ("nufi-test", ["NufiAlwaysFiring"])
        ]

        async def firing_in_prometheus() -> list[dict[str, Any]]:
            return [a for a in await prometheus.alerts() if a["state"] == "firing"]

        await until(firing_in_prometheus, within=15, what="the alert firing in Prometheus")

        def delivered() -> dict[str, Any]:
            listed = [a for a in alertmanager.alerts() if a["labels"]["alertname"] == "NufiAlwaysFiring"]
            assert len(listed) == 1, listed
            return listed[0]

        alert = await eventually(delivered, within=15, every=0.2)
        assert alert["labels"] == {
            "alertname": "NufiAlwaysFiring",
            "severity": "warning",
            "device_type": "lpu",
            "node": "lpu-node-1",
        }
        assert alert["status"]["state"] == "active"
        assert alert["receivers"] == [{"name": "nufi-null"}]
        assert alert["annotations"] == {"summary": "always firing"}
    assert [pid for pid in pids if pid_alive(pid)] == []
    async with httpx.AsyncClient(timeout=2) as client:
        for url in urls:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"{url}/-/ready")
