"""Saving in the Add Device wizard while Prometheus cannot be reached (its URL a closed loopback port),
through NiceGUI's simulated user: the save is refused, the page says that Prometheus cannot be reached
and that the metrics were therefore not checked, and offers the save without the metric check, which
saves the type and records the bypass in the audit log."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.errors import NotFound
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.loopback import closed_port
from support.polling import eventually

from .people import PEOPLE
from .wizard_steps import at_step, fill_identity, open_wizard, sees
from .wizard_world import attached_services, dashboard, dashboard_env


@pytest.fixture
async def prometheus_down(wizard_cluster: DevClusterProcess, tmp_path: Path) -> AsyncIterator[User]:
    env = dashboard_env(
        tmp_path, prometheus_url=f"http://127.0.0.1:{closed_port()}", kubeconfig=wizard_cluster.kubeconfig
    )
    async with dashboard(env) as user:
        yield user


@pytest.mark.parametrize(
    ("language", "title", "button"),
    [
        ("en", "Prometheus cannot be reached, so the metrics were not checked.", "Save without checking"),
        ("ko", "Prometheus에 연결할 수 없어서 지표를 검사하지 못했습니다.", "지표 검사 없이 저장"),
    ],
)
async def test_a_save_while_prometheus_is_down_says_so_and_saves_without_the_metric_check_when_asked(
    prometheus_down: User, language: str, title: str, button: str
) -> None:
    user = prometheus_down
    await open_wizard(user, language, 1)
    await fill_identity(user)
    await eventually(sees(user, "key-result", "✓"), within=15)
    user.find(marker="wizard-forward").click()
    await at_step(user, 2)
    user.find(marker="labels.node").type("node")
    user.find(marker="labels.device").type("device")
    user.find(marker="metrics.utilization").type("wiz_utilization")
    user.find(marker="wizard-forward").click()
    await at_step(user, 3)

    user.find(marker="wizard-forward").click()
    await eventually(sees(user, "wizard-prometheus-down", title), within=15)
    with user:
        (save_unchecked,) = user.find(marker="wizard-save-unchecked").elements
    assert isinstance(save_unchecked, ui.button) and button in save_unchecked.text
    with pytest.raises(NotFound):  # nothing was saved yet
        await attached_services().catalog.get(PEOPLE["admin"], "wizard-npu")

    user.find(marker="wizard-save-unchecked").click()

    def listed() -> dict[str, Any]:
        (table,) = user.find(kind=ui.table).elements
        rows = {row["id"]: row for row in table.rows}
        assert "wizard-npu" in rows, list(rows)
        return rows["wizard-npu"]

    await eventually(listed, within=20)
    page = await attached_services().catalog.audit(PEOPLE["admin"], target_id="wizard-npu")
    (created,) = page.items
    assert created.details is not None and created.details["force"] is True
    assert any("metrics not checked" in reason for reason in created.details["bypassed"])
