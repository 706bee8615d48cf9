"""Admin → Devices → Add Device as an admin meets it, through NiceGUI's simulated user (no browser): the
resource key checked as it is typed, each expression's Test, the memory mode, the review and Save, a
reload resuming the step, and who may open it. The draft is kept in the database: a restart of the
dashboard over the same database resumes it too, another person's draft id finds nothing, Save and
Start over delete it.

`offline` is the dashboard with neither a cluster nor Prometheus; `live` has a dev cluster whose nodes
offer `example.com/wiz` and the session's real Prometheus (whose `vector()` and `label_replace` make
series of any shape without an exporter).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nicegui import background_tasks, ui
from nicegui.testing import User

from nufi.auth import Principal
from nufi.devices.drafts import WizardDrafts
from nufi.ui.wizard.kept import SAVE_TASK_NAME
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.polling import eventually, until

from .people import PEOPLE
from .wizard_world import (
    WIZARD_KEY,
    as_,
    attached_services,
    dashboard,
    dashboard_env,
    input_of,
    shown,
)

WIZARD = "/admin/devices/new"
# One series per device with the node and device labels, at a value of the caller's choosing.
LABELLED = 'label_replace(label_replace(vector({value}), "node", "wiz-1", "", ""), "device", "d0", "", "")'


def _offline(work: Path) -> dict[str, str]:
    return dashboard_env(work)


@pytest.fixture
async def offline(tmp_path: Path) -> AsyncIterator[User]:
    async with dashboard(_offline(tmp_path)) as user:
        yield user


@pytest.fixture
async def live(
    wizard_cluster: DevClusterProcess, prometheus: PrometheusServer, tmp_path: Path
) -> AsyncIterator[User]:
    env = dashboard_env(tmp_path, prometheus_url=prometheus.url, kubeconfig=wizard_cluster.kubeconfig)
    async with dashboard(env) as user:
        yield user


def _sees(user: User, marker: str, *expected: str) -> Any:
    def check() -> None:
        text = shown(user, marker)
        for part in expected:
            assert part in text, f"{part!r} not in {marker}: {text!r}"

    return check


def _drafts() -> WizardDrafts:
    return attached_services().wizard_drafts


def _draft_id(user: User) -> str:
    """The draft id in the URL of the page the user is on ("" when it has none)."""
    assert user.client is not None
    return user.client.request.query_params.get("draft", "")


def _no_save_pending() -> None:
    assert not [task for task in background_tasks.running_tasks if task.get_name() == SAVE_TASK_NAME]


async def _open(user: User, language: str | None, step: int) -> None:
    """Open the wizard at `step` as the admin, on the draft of the wizard page the user is on, if any
    (`language` None: as before). Like a reload once the typing has paused: what was typed is saved."""
    if language is not None:
        as_(user, "admin", language)
    draft = _draft_id(user) if user.client is not None else ""
    await eventually(_no_save_pending, within=5)
    await user.open(f"{WIZARD}?step={step}" + (f"&draft={draft}" if draft else ""))
    await _step(user, step)


async def _step(user: User, number: int) -> None:
    await eventually(_sees(user, "wizard-current-step", f"{number}."), within=10)


async def _fill_identity(user: User, key: str = WIZARD_KEY) -> None:
    user.find(marker="name").type("Wizard NPU")
    user.find(marker="vendor").type("Example")
    user.find(marker="resource_key").type(key)


# -- who may open it -----------------------------------------------------------------------------------


async def test_a_user_who_is_not_an_admin_is_refused_the_wizard(offline: User) -> None:
    for step in (1, 2, 3):
        await as_(offline, "user", "en").open(f"{WIZARD}?step={step}")
        await offline.should_see("You do not have access")
        await offline.should_not_see(marker="resource_key")
        await offline.should_not_see(marker="wizard-forward")


async def test_the_devices_page_has_an_add_device_button_that_opens_step_one(offline: User) -> None:
    await as_(offline, "admin", "en").open("/admin/devices")
    offline.find(marker="add-device").click()
    await _step(offline, 1)
    await offline.should_see(marker="resource_key")
    await offline.should_see("Add Device")


# -- step 1: the resource key, checked as it is typed --------------------------------------------------


async def test_a_key_that_breaks_kubernetes_rules_is_explained_next_to_the_key(offline: User) -> None:
    await _open(offline, "en", 1)
    offline.find(marker="resource_key").type("Example.com/a/b")
    await eventually(_sees(offline, "key-result", "The resource key is not valid"), within=10)
    text = shown(offline, "key-result")
    assert "contains 2 `/`" in text  # each broken rule, in the service's words
    assert "lowercase DNS subdomain" in text


async def test_without_a_cluster_the_key_check_says_the_cluster_cannot_be_read(offline: User) -> None:
    await _open(offline, "ko", 1)
    offline.find(marker="resource_key").type(WIZARD_KEY)
    await eventually(_sees(offline, "key-result", "클러스터를 읽지 못해"), within=10)
    assert "✓" not in shown(offline, "key-result")


async def test_typing_checks_once_the_typing_pauses(offline: User) -> None:
    await _open(offline, "en", 1)
    key = offline.find(marker="resource_key")
    key.type("bad")
    key.type("/")  # "bad/": an empty name part, superseded before its check runs
    key.type("x/y")
    await eventually(_sees(offline, "key-result", "contains 2 `/`"), within=10)
    assert "name part after `/` is empty" not in shown(offline, "key-result")


async def test_a_key_the_cluster_offers_gets_a_tick_and_the_capacity_of_each_node(live: User) -> None:
    await _open(live, "ko", 1)
    live.find(marker="resource_key").type(WIZARD_KEY)
    await eventually(_sees(live, "key-result", "✓ 클러스터에서 감지된 리소스입니다."), within=15)
    text = shown(live, "key-result")
    assert "노드 2개에 모두 6개" in text
    assert "wiz-1 2 2" in text and "wiz-2 4 4" in text
    assert "wiz-plain" not in text

    await _open(live, "en", 1)  # the draft kept the key: checked at once
    await eventually(_sees(live, "key-result", "✓ Detected in the cluster."), within=15)


async def test_a_key_no_node_offers_says_so_and_how_to_fix_it(live: User) -> None:
    await _open(live, "en", 1)
    live.find(marker="resource_key").type("example.com/wi")
    await eventually(_sees(live, "key-result", "No node offers this resource."), within=15)
    text = shown(live, "key-result")
    assert "No node advertises `example.com/wi` among 3 nodes" in text
    assert f"Did you mean `{WIZARD_KEY}`?" in text


async def test_next_refuses_an_empty_name_next_to_it(offline: User) -> None:
    await _open(offline, "en", 1)
    offline.find(marker="wizard-forward").click()
    await eventually(_sees(offline, "error-name", "name must not be empty"), within=5)
    await _step(offline, 1)


# -- step 2: labels and expressions, each with a Test ---------------------------------------------------


async def test_broken_promql_is_shown_under_its_expression(live: User) -> None:
    await _open(live, "en", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type("sum(rate(x[5m]")
    live.find(marker="test-metrics.utilization").click()
    await eventually(_sees(live, "result-metrics.utilization", "Fix the PromQL expression"), within=15)
    # Next holds the same rule: the step does not change.
    live.find(marker="wizard-forward").click()
    await eventually(_sees(live, "error-metrics.utilization", "fix the PromQL expression"), within=5)
    await _step(live, 2)


async def test_series_without_the_labels_and_implausible_values_are_named(live: User) -> None:
    await _open(live, "en", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="labels.pod").type("__pod")  # not a label a stored series can carry
    live.find(marker="metrics.utilization").type("vector(50)")
    live.find(marker="metrics.temperature").type(LABELLED.format(value=900))
    live.find(marker="test-metrics.utilization").click()
    await eventually(_sees(live, "result-metrics.utilization", "1 series", "node, device"), within=15)
    assert "1 of 1 series have no `node` label" in shown(live, "result-metrics.utilization")
    await eventually(_sees(live, "error-labels.pod", "starts with `__`"), within=5)

    live.find(marker="test-metrics.temperature").click()
    await eventually(_sees(live, "result-metrics.temperature", "✓ The expression works.", "look implausible"))
    assert "wiz-1 d0 900" in shown(live, "result-metrics.temperature")  # shown, and flagged


async def test_the_memory_mode_switches_between_total_and_free(live: User) -> None:
    await _open(live, "en", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    second = input_of(live, "metrics.memory.second")
    assert second.props["label"] == "Total memory"
    live.find(marker="metrics.memory.used").type(LABELLED.format(value=3))
    second.set_value(LABELLED.format(value=8))

    (toggle,) = live.find(marker="metrics.memory.mode").elements
    assert isinstance(toggle, ui.toggle)
    toggle.set_value("used_free")
    assert second.props["label"] == "Free memory"
    assert second.value == ""  # free has not been written yet
    second.set_value(LABELLED.format(value=5))
    live.find(marker="test-metrics.memory.used").click()
    await eventually(_sees(live, "result-metrics.memory.second", "✓ The expression works.", "wiz-1 d0 5"))
    assert "wiz-1 d0 3" in shown(live, "result-metrics.memory.used")

    toggle.set_value("used_total")  # what was written for total is still there
    assert second.value == LABELLED.format(value=8)
    toggle.set_value("used_free")

    await _open(live, "en", 3)
    review = shown(live, "review")
    assert "Used & Free" in review and LABELLED.format(value=5) in review
    assert LABELLED.format(value=8) not in review


async def test_a_memory_mode_without_its_expression_is_refused_next_to_it(offline: User) -> None:
    await _open(offline, "en", 2)
    offline.find(marker="metrics.memory.used").type("mem_used")
    offline.find(marker="test-metrics.memory.used").click()
    await eventually(_sees(offline, "error-metrics.memory.second", "metrics.memory.total is required"))


# -- the draft survives a reload; step 3 saves --------------------------------------------------------


async def test_a_reload_resumes_at_step_two_with_what_was_typed(offline: User) -> None:
    await _open(offline, "en", 1)
    await _fill_identity(offline)
    assert input_of(offline, "id").value == ""  # left empty: moving on makes it from the name
    offline.find(marker="wizard-forward").click()
    await _step(offline, 2)
    offline.find(marker="labels.node").type("Hostname")

    await _open(offline, None, 2)  # the browser's reload: same tab, same URL
    await _step(offline, 2)
    assert input_of(offline, "labels.node").value == "Hostname"
    offline.find(marker="wizard-back").click()
    await _step(offline, 1)
    assert input_of(offline, "name").value == "Wizard NPU"
    assert input_of(offline, "id").value == "wizard-npu"
    assert input_of(offline, "resource_key").value == WIZARD_KEY


async def test_saving_without_a_cluster_says_why_at_the_top(offline: User) -> None:
    await _open(offline, "en", 1)
    await _fill_identity(offline)
    await _open(offline, None, 2)
    offline.find(marker="labels.node").type("node")
    offline.find(marker="labels.device").type("device")
    offline.find(marker="metrics.utilization").type("util")
    await _open(offline, None, 3)
    offline.find(marker="wizard-forward").click()
    await eventually(_sees(offline, "error-top", "Kubernetes"), within=15)
    await _step(offline, 3)


async def test_saving_an_official_id_is_refused_next_to_the_id(live: User) -> None:
    await _open(live, "en", 1)
    await _fill_identity(live)
    input_of(live, "id").set_value("nvidia-gpu")
    await _open(live, None, 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type("util")
    await _open(live, None, 3)
    live.find(marker="wizard-forward").click()
    await eventually(_sees(live, "error-id", "official device type"), within=15)


async def test_save_registers_the_type_and_the_device_list_shows_it_as_custom(live: User) -> None:
    await _open(live, "en", 1)
    await _fill_identity(live)
    await eventually(_sees(live, "key-result", "✓ Detected in the cluster."), within=15)
    live.find(marker="wizard-forward").click()
    await _step(live, 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type(LABELLED.format(value=42))
    live.find(marker="metrics.power").type(LABELLED.format(value=120))
    live.find(marker="wizard-forward").click()
    await _step(live, 3)
    review = shown(live, "review")
    assert "wizard-npu" in review and WIZARD_KEY in review and "(none)" in review  # no temperature
    saved_draft = _draft_id(live)
    assert await _drafts().get(PEOPLE["admin"], saved_draft) is not None

    live.find(marker="wizard-forward").click()

    def listed() -> dict[str, Any]:
        (table,) = live.find(kind=ui.table).elements
        rows = {row["id"]: row for row in table.rows}
        assert "wizard-npu" in rows, list(rows)
        return rows["wizard-npu"]

    row = await eventually(listed, within=20)
    assert row["kind"] == "Custom" and row["resource_key"] == WIZARD_KEY
    assert row["capacity"] == "6 / 6 / 0"
    # The draft is gone: its row is deleted, and the next Add Device starts empty.
    assert await _drafts().get(PEOPLE["admin"], saved_draft) is None
    await _open(live, None, 1)
    assert input_of(live, "name").value == ""


async def test_a_key_no_node_offers_is_saved_only_when_the_admin_says_save_anyway(live: User) -> None:
    await _open(live, "en", 1)
    await _fill_identity(live, key="example.com/not-installed")
    await eventually(_sees(live, "key-result", "No node"), within=15)
    live.find(marker="wizard-forward").click()
    await _step(live, 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type(LABELLED.format(value=42))
    live.find(marker="wizard-forward").click()
    await _step(live, 3)
    live.find(marker="wizard-forward").click()
    await eventually(_sees(live, "error-resource_key", "example.com/not-installed"), within=15)
    await _step(live, 3)

    live.find(marker="wizard-force").click()
    live.find(marker="wizard-forward").click()

    def listed() -> dict[str, Any]:
        (table,) = live.find(kind=ui.table).elements
        rows = {row["id"]: row for row in table.rows}
        assert "wizard-npu" in rows, list(rows)
        return rows["wizard-npu"]

    row = await eventually(listed, within=20)
    assert row["resource_key"] == "example.com/not-installed"
    page = await attached_services().catalog.audit(PEOPLE["admin"], target_id="wizard-npu")
    (created,) = page.items
    assert created.details is not None and created.details["force"] is True
    assert any("example.com/not-installed" in reason for reason in created.details["bypassed"])


# -- the draft is kept in the database ------------------------------------------------------------------


async def test_opening_the_wizard_gives_each_tab_a_draft_of_its_own(offline: User) -> None:
    await _open(offline, "en", 1)
    first = _draft_id(offline)
    assert first  # redirected to the URL with its draft
    offline.find(marker="name").type("First tab")
    await _open(offline, "en", 1)
    assert _draft_id(offline) == first
    assert input_of(offline, "name").value == "First tab"

    await offline.open(f"{WIZARD}?step=1")  # another tab opens Add Device
    await _step(offline, 1)
    second = _draft_id(offline)
    assert second and second != first
    assert input_of(offline, "name").value == ""
    offline.find(marker="name").type("Second tab")
    await eventually(_no_save_pending, within=5)
    assert (await _drafts().get(PEOPLE["admin"], first) or {}).get("name") == "First tab"
    assert (await _drafts().get(PEOPLE["admin"], second) or {}).get("name") == "Second tab"


async def test_a_restart_resumes_at_step_two_with_what_was_typed(tmp_path: Path) -> None:
    env = _offline(tmp_path)  # both processes over this one database file
    async with dashboard(env) as before:
        await _open(before, "en", 1)
        await _fill_identity(before)
        before.find(marker="wizard-forward").click()
        await _step(before, 2)
        before.find(marker="labels.node").type("Hostname")
        url = f"{WIZARD}?step=2&draft={_draft_id(before)}"
        await eventually(_no_save_pending, within=5)

    async with dashboard(env) as after:  # a new NuFi process over the same database
        await as_(after, "admin", "en").open(url)
        await _step(after, 2)
        await after.should_not_see(marker="draft-missing")
        assert input_of(after, "labels.node").value == "Hostname"
        after.find(marker="wizard-back").click()
        await _step(after, 1)
        assert input_of(after, "name").value == "Wizard NPU"
        assert input_of(after, "id").value == "wizard-npu"
        assert input_of(after, "resource_key").value == WIZARD_KEY


async def test_another_persons_draft_is_not_shown_and_a_fresh_one_starts(offline: User) -> None:
    other = Principal(subject="s-other-admin", username="other", roles=frozenset({"nufi-admin"}))
    theirs = await _drafts().create(other, {"name": "Their secret NPU", "labels.node": "their-node"})

    await as_(offline, "admin", "en").open(f"{WIZARD}?step=2&draft={theirs}")
    await _step(offline, 1)  # a fresh draft starts at the beginning
    await eventually(_sees(offline, "draft-missing", "This draft was not found"), within=5)
    assert input_of(offline, "name").value == ""
    offline.find(marker="name").type("Mine")
    await eventually(_no_save_pending, within=5)
    # Theirs is untouched, and not the admin's to read.
    assert await _drafts().get(PEOPLE["admin"], theirs) is None
    assert await _drafts().get(other, theirs) == {"name": "Their secret NPU", "labels.node": "their-node"}


async def test_an_unknown_draft_id_starts_a_fresh_draft_and_says_so(offline: User) -> None:
    await as_(offline, "admin", "ko").open(f"{WIZARD}?step=3&draft=no-such-draft")
    await _step(offline, 1)
    await eventually(_sees(offline, "draft-missing", "새 초안"), within=5)
    await offline.should_see(marker="name")


async def test_start_over_deletes_the_draft_and_opens_an_empty_one(offline: User) -> None:
    await _open(offline, "en", 1)
    offline.find(marker="name").type("Soon gone")
    draft = _draft_id(offline)
    await eventually(_no_save_pending, within=5)
    assert (await _drafts().get(PEOPLE["admin"], draft) or {}).get("name") == "Soon gone"

    offline.find(marker="wizard-restart").click()

    async def started_over() -> bool:
        assert await _drafts().get(PEOPLE["admin"], draft) is None
        assert _draft_id(offline) not in ("", draft)
        assert input_of(offline, "name").value == ""
        return True

    await until(started_over, within=10)
    await offline.should_not_see(marker="draft-missing")
