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

from typing import Any

from nicegui import ui
from nicegui.testing import User

from support.polling import eventually

from .people import PEOPLE
from .wizard_steps import WIZARD, at_step, draft_id, drafts, fill_identity, open_wizard, sees
from .wizard_world import (
    OFFICIAL_KEY,
    WIZARD_KEY,
    as_,
    attached_services,
    input_of,
    shown,
)

# One series per device with the node and device labels, at a value of the caller's choosing.
LABELLED = 'label_replace(label_replace(vector({value}), "node", "wiz-1", "", ""), "device", "d0", "", "")'


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
    await at_step(offline, 1)
    await offline.should_see(marker="resource_key")
    await offline.should_see("Add Device")


# -- step 1: the resource key, checked as it is typed --------------------------------------------------


async def test_a_key_that_breaks_kubernetes_rules_is_explained_next_to_the_key(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    offline.find(marker="resource_key").type("Example.com/a/b")
    await eventually(sees(offline, "key-result", "The resource key is not valid"), within=10)
    text = shown(offline, "key-result")
    assert "contains 2 '/'" in text  # each broken rule, in the service's words
    assert "lowercase DNS subdomain" in text


async def test_without_a_cluster_the_key_check_says_the_cluster_cannot_be_read(offline: User) -> None:
    await open_wizard(offline, "ko", 1)
    offline.find(marker="resource_key").type(WIZARD_KEY)
    await eventually(sees(offline, "key-result", "클러스터를 읽지 못해"), within=10)
    assert "✓" not in shown(offline, "key-result")


async def test_typing_checks_once_the_typing_pauses(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    key = offline.find(marker="resource_key")
    key.type("bad")
    key.type("/")  # "bad/": an empty name part, superseded before its check runs
    key.type("x/y")
    await eventually(sees(offline, "key-result", "contains 2 '/'"), within=10)
    assert "name part after '/' is empty" not in shown(offline, "key-result")


async def test_a_key_the_cluster_offers_gets_a_tick_and_the_capacity_of_each_node(live: User) -> None:
    await open_wizard(live, "ko", 1)
    live.find(marker="resource_key").type(WIZARD_KEY)
    await eventually(sees(live, "key-result", "✓ 클러스터에서 감지된 리소스입니다."), within=15)
    text = shown(live, "key-result")
    assert "노드 2개에 모두 6개" in text
    assert "wiz-1 2 2" in text and "wiz-2 4 4" in text
    assert "wiz-plain" not in text

    await open_wizard(live, "en", 1)  # the draft kept the key: checked at once
    await eventually(sees(live, "key-result", "✓ Detected in the cluster.", "6 in all on 2 nodes"), within=15)
    input_of(live, "resource_key").set_value(OFFICIAL_KEY)  # one GPU, on one node: the singular
    await eventually(sees(live, "key-result", "1 in all on 1 node (1 allocatable)"), within=15)


async def test_a_key_no_node_offers_says_so_and_how_to_fix_it(live: User) -> None:
    await open_wizard(live, "en", 1)
    live.find(marker="resource_key").type("example.com/wi")
    await eventually(sees(live, "key-result", "⚠ Not detected in the cluster."), within=15)
    text = shown(live, "key-result")
    assert "No node advertises 'example.com/wi' among 3 nodes" in text
    assert f"Did you mean '{WIZARD_KEY}'?" in text


async def test_next_with_a_key_no_node_offers_asks_first_and_back_stays_on_step_one(live: User) -> None:
    await open_wizard(live, "ko", 1)
    await fill_identity(live, key="example.com/wi")
    await eventually(sees(live, "key-result", "⚠ 클러스터에서 감지되지 않은 리소스입니다."), within=15)
    live.find(marker="wizard-forward").click()
    live.find(marker="wizard-forward").click()  # an impatient second click asks nothing more
    await eventually(
        sees(
            live,
            "key-confirm",
            "example.com/wi 리소스를 알리는 노드가 없습니다",
            "모니터링에 이 유형이 아무것도 표시되지 않고",
            "워크로드를 배치할 수 없습니다",
        ),
        within=15,
    )
    assert len(live.find(marker="key-confirm").elements) == 1
    assert "그래도 계속" in shown_buttons(live, "key-confirm") and "돌아가기" in shown_buttons(
        live, "key-confirm"
    )
    live.find(marker="key-confirm-back").click()
    await live.should_not_see(marker="key-confirm")
    await at_step(live, 1)
    assert input_of(live, "resource_key").value == "example.com/wi"

    live.find(marker="wizard-forward").click()  # asked again, and this time going on
    await eventually(sees(live, "key-confirm", "example.com/wi"), within=15)
    live.find(marker="key-confirm-go-on").click()
    await at_step(live, 2)


def shown_buttons(user: User, marker: str) -> str:
    with user:
        return " ".join(
            part.text
            for found in user.find(marker=marker).elements
            for part in found.descendants()
            if isinstance(part, ui.button)
        )


async def test_next_refuses_an_empty_name_next_to_it(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    offline.find(marker="wizard-forward").click()
    await eventually(sees(offline, "error-name", "name must not be empty"), within=5)
    await at_step(offline, 1)


# -- step 2: labels and expressions, each with a Test ---------------------------------------------------


async def test_broken_promql_is_shown_under_its_expression(live: User) -> None:
    await open_wizard(live, "en", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type("sum(rate(x[5m]")
    live.find(marker="test-metrics.utilization").click()
    await eventually(
        sees(live, "result-metrics.utilization", "is not valid PromQL; fix the expression"), within=15
    )
    # Next holds the same rule: the step does not change.
    live.find(marker="wizard-forward").click()
    await eventually(sees(live, "error-metrics.utilization", "fix the PromQL expression"), within=5)
    await at_step(live, 2)


async def test_series_without_the_labels_and_implausible_values_are_named(live: User) -> None:
    await open_wizard(live, "en", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="labels.pod").type("__pod")  # not a label a stored series can carry
    live.find(marker="metrics.utilization").type("vector(50)")
    live.find(marker="metrics.temperature").type(LABELLED.format(value=900))
    live.find(marker="test-metrics.utilization").click()
    await eventually(sees(live, "result-metrics.utilization", "1 series", "node, device"), within=15)
    assert "1 of 1 series have no 'node' label" in shown(live, "result-metrics.utilization")
    await eventually(sees(live, "error-labels.pod", "starts with '__'"), within=5)

    live.find(marker="test-metrics.temperature").click()
    await eventually(sees(live, "result-metrics.temperature", "✓ The expression works.", "look implausible"))
    assert "wiz-1 d0 900" in shown(live, "result-metrics.temperature")  # shown, and flagged


async def test_the_memory_mode_switches_between_total_and_free(live: User) -> None:
    await open_wizard(live, "en", 2)
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
    await eventually(sees(live, "result-metrics.memory.second", "✓ The expression works.", "wiz-1 d0 5"))
    assert "wiz-1 d0 3" in shown(live, "result-metrics.memory.used")

    toggle.set_value("used_total")  # what was written for total is still there
    assert second.value == LABELLED.format(value=8)
    toggle.set_value("used_free")

    await open_wizard(live, "en", 3)
    review = shown(live, "review")
    assert "Used & Free" in review and LABELLED.format(value=5) in review
    assert LABELLED.format(value=8) not in review


async def test_a_memory_mode_without_its_expression_is_refused_next_to_it(offline: User) -> None:
    await open_wizard(offline, "en", 2)
    offline.find(marker="metrics.memory.used").type("mem_used")
    offline.find(marker="test-metrics.memory.used").click()
    await eventually(sees(offline, "error-metrics.memory.second", "metrics.memory.total is required"))


# -- the draft survives a reload; step 3 saves --------------------------------------------------------


async def test_a_reload_resumes_at_step_two_with_what_was_typed(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    await fill_identity(offline)
    assert input_of(offline, "id").value == ""  # left empty: moving on makes it from the name
    offline.find(marker="wizard-forward").click()
    await at_step(offline, 2)
    offline.find(marker="labels.node").type("Hostname")

    await open_wizard(offline, None, 2)  # the browser's reload: same tab, same URL
    await at_step(offline, 2)
    assert input_of(offline, "labels.node").value == "Hostname"
    offline.find(marker="wizard-back").click()
    await at_step(offline, 1)
    assert input_of(offline, "name").value == "Wizard NPU"
    assert input_of(offline, "id").value == "wizard-npu"
    assert input_of(offline, "resource_key").value == WIZARD_KEY


async def test_saving_without_a_cluster_says_why_at_the_top(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    await fill_identity(offline)
    await open_wizard(offline, None, 2)
    offline.find(marker="labels.node").type("node")
    offline.find(marker="labels.device").type("device")
    offline.find(marker="metrics.utilization").type("util")
    await open_wizard(offline, None, 3)
    offline.find(marker="wizard-forward").click()
    await eventually(sees(offline, "error-top", "Kubernetes"), within=15)
    await at_step(offline, 3)


async def test_saving_an_official_id_is_refused_next_to_the_id(live: User) -> None:
    await open_wizard(live, "en", 1)
    await fill_identity(live)
    input_of(live, "id").set_value("nvidia-gpu")
    await open_wizard(live, None, 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type("util")
    await open_wizard(live, None, 3)
    live.find(marker="wizard-forward").click()
    await eventually(sees(live, "error-id", "official device type"), within=15)


async def test_save_registers_the_type_and_the_device_list_shows_it_as_custom(live: User) -> None:
    await open_wizard(live, "en", 1)
    await fill_identity(live)
    await eventually(sees(live, "key-result", "✓ Detected in the cluster."), within=15)
    live.find(marker="wizard-forward").click()
    await at_step(live, 2)  # a key the cluster offers goes on unasked: no question waits for an answer
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type(LABELLED.format(value=42))
    live.find(marker="metrics.power").type(LABELLED.format(value=120))
    live.find(marker="wizard-forward").click()
    await at_step(live, 3)
    review = shown(live, "review")
    assert "wizard-npu" in review and WIZARD_KEY in review and "(none)" in review  # no temperature
    saved_draft = draft_id(live)
    assert await drafts().get(PEOPLE["admin"], saved_draft) is not None

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
    assert await drafts().get(PEOPLE["admin"], saved_draft) is None
    await open_wizard(live, None, 1)
    assert input_of(live, "name").value == ""


async def test_a_key_no_node_offers_is_saved_only_when_the_admin_says_save_anyway(live: User) -> None:
    await open_wizard(live, "en", 1)
    await fill_identity(live, key="example.com/not-installed")
    await eventually(sees(live, "key-result", "No node"), within=15)
    live.find(marker="wizard-forward").click()
    await eventually(sees(live, "key-confirm", "No node advertises example.com/not-installed"), within=15)
    live.find(marker="key-confirm-go-on").click()
    await at_step(live, 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type(LABELLED.format(value=42))
    live.find(marker="wizard-forward").click()
    await at_step(live, 3)
    live.find(marker="wizard-forward").click()
    await eventually(sees(live, "error-resource_key", "example.com/not-installed"), within=15)
    await at_step(live, 3)

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
