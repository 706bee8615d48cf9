"""Admin → Devices, each row's actions as an admin meets them through NiceGUI's simulated user: enable /
disable, delete a custom type and reset an official one (each after a confirmation), a conflicting edit
and its reload, every error in the person's language, and Admin → Audit naming the fields that changed.

The row's buttons live in the table's Quasar slot, which the simulated user cannot click: the tests send
the events those buttons emit (`toggle`, `delete`, `reset`, `reload`, `force`, each with the row's id).
`live` is the dashboard over a dev cluster offering `example.com/wiz` and the session's Prometheus;
`offline` has neither.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceTypeCreate
from nufi.errors import NotFound
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.prometheus import PrometheusServer
from support.polling import eventually, holds

from .people import PEOPLE
from .wizard_world import WIZARD_KEY, as_, dashboard, shown

DEVICES = "/admin/devices"
CUSTOM = "act-npu"
# One series per device with the node and device labels, as the wizard's tests make them.
LABELLED = 'label_replace(label_replace(vector({value}), "node", "wiz-1", "", ""), "device", "d0", "", "")'
ADMIN = PEOPLE["admin"]
# An official type whose key no node of the wizard cluster offers.
FAILING, FAILING_KEY = "furiosa-rngd", "furiosa.ai/rngd"


@pytest.fixture
async def offline() -> AsyncIterator[User]:
    async with dashboard({"NUFI_TEST_PROMETHEUS_URL": "", "NUFI_TEST_KUBECONFIG": ""}) as user:
        yield user


@pytest.fixture
async def live(wizard_cluster: DevClusterProcess, prometheus: PrometheusServer) -> AsyncIterator[User]:
    env = {"NUFI_TEST_PROMETHEUS_URL": prometheus.url, "NUFI_TEST_KUBECONFIG": str(wizard_cluster.kubeconfig)}
    async with dashboard(env) as user:
        yield user


def catalog() -> DeviceCatalog:
    found: DeviceCatalog = importlib.import_module("nufi.ui.context").services().catalog
    return found


async def add_custom() -> None:
    payload = DeviceTypeCreate.model_validate(
        {
            "id": CUSTOM,
            "name": "Act NPU",
            "vendor": "Example",
            "resource_key": WIZARD_KEY,
            "labels": {"node": "node", "device": "device"},
            "metrics": {"utilization": LABELLED.format(value=42)},
        }
    )
    await catalog().create(ADMIN, payload)


def rows(user: User) -> dict[str, dict[str, Any]]:
    (table,) = user.find(kind=ui.table).elements
    assert isinstance(table, ui.table)
    return {row["id"]: row for row in table.rows}


def dialog_open(user: User) -> bool:
    client = user.client
    assert client is not None
    return any(isinstance(e, ui.dialog) and e.value for e in client.layout.descendants())


def send(user: User, event: str, device_type_id: str) -> None:
    """What the row's button (in the table's slot) emits when it is clicked."""
    user.find(kind=ui.table).trigger(event, device_type_id)


async def row_becomes(user: User, device_type_id: str, **expected: object) -> dict[str, Any]:
    def check() -> dict[str, Any]:
        row = rows(user)[device_type_id]
        for key, value in expected.items():
            assert row[key] == value, (key, row)
        return row

    return await eventually(check, within=20)


async def open_devices(user: User, language: str = "en") -> None:
    await as_(user, "admin", language).open(DEVICES)
    await eventually(lambda: rows(user)["nvidia-gpu"], within=10)


# -- enable / disable ----------------------------------------------------------------------------------


async def test_an_admin_disables_then_enables_a_type_and_the_catalog_agrees(live: User) -> None:
    await add_custom()
    await open_devices(live)
    assert rows(live)[CUSTOM]["enabled_on"] is True

    send(live, "toggle", CUSTOM)
    row = await row_becomes(live, CUSTOM, enabled_on=False, enabled="—", revision=2)
    assert row["note"] == ""
    assert (await catalog().get(ADMIN, CUSTOM)).enabled is False
    await live.should_see("Disabled Act NPU.")

    send(live, "toggle", CUSTOM)  # turning it on runs its checks: the cluster and Prometheus pass them
    await row_becomes(live, CUSTOM, enabled_on=True, enabled="✓", revision=3)
    assert (await catalog().get(ADMIN, CUSTOM)).enabled is True
    await live.should_see("Enabled Act NPU.")


async def test_enabling_a_type_that_fails_its_checks_says_why_and_may_go_ahead_without_them(
    live: User,
) -> None:
    await open_devices(live)
    send(live, "toggle", FAILING)  # off: no check needed, though no node offers its key
    await row_becomes(live, FAILING, enabled_on=False)

    send(live, "toggle", FAILING)
    row = await row_becomes(live, FAILING, note="Not saved: the type did not pass its checks.")
    assert FAILING_KEY in row["note_detail"] and row["note_force"] is True
    assert row["enabled_on"] is False and (await catalog().get(ADMIN, FAILING)).enabled is False

    send(live, "force", FAILING)
    await row_becomes(live, FAILING, enabled_on=True, note="")
    assert (await catalog().get(ADMIN, FAILING)).enabled is True


async def test_without_a_cluster_the_refusal_is_next_to_the_row_in_korean(offline: User) -> None:
    await open_devices(offline, "ko")
    send(offline, "toggle", "nvidia-gpu")
    row = await row_becomes(
        offline, "nvidia-gpu", note="NuFi가 사용하는 서비스에 연결할 수 없어 저장하지 않았습니다."
    )
    assert "Kubernetes" in row["note_detail"] and "Traceback" not in row["note_detail"]
    assert row["note_force"] is False  # without the cluster nothing can be saved, forced or not
    assert row["enabled_on"] is True and (await catalog().get(ADMIN, "nvidia-gpu")).enabled is True


async def test_without_a_cluster_each_row_says_why_in_the_readers_language(offline: User) -> None:
    for language, why, foreign in (
        ("ko", "클러스터를 읽지 못했습니다: Kubernetes가 설정되지 않았습니다", "is not configured"),
        ("en", "The cluster could not be read: Kubernetes is not configured", "설정되지"),
    ):
        await open_devices(offline, language)
        capacity = rows(offline)["nvidia-gpu"]["capacity"]
        assert capacity.startswith(why) and foreign not in capacity, capacity


# -- delete --------------------------------------------------------------------------------------------


async def test_deleting_a_custom_type_asks_first_and_cancelling_keeps_it(live: User) -> None:
    await add_custom()
    await open_devices(live)
    assert rows(live)[CUSTOM]["deletable"] is True

    send(live, "delete", CUSTOM)
    await eventually(
        lambda: holds("Delete the device type Act NPU (act-npu)?" in shown(live, "dialog-title"))
    )
    # What goes with the type is said before it goes.
    said = shown(live, "device-dialog")
    assert "temperature protection policy" in said and "alert thresholds" in said, said
    live.find(marker="dialog-cancel").click()
    await eventually(lambda: holds(not dialog_open(live)))
    assert CUSTOM in rows(live)
    assert (await catalog().get(ADMIN, CUSTOM)).name == "Act NPU"

    send(live, "delete", CUSTOM)
    await eventually(lambda: holds(dialog_open(live)))
    live.find(marker="dialog-confirm").click()
    await eventually(lambda: holds(CUSTOM not in rows(live)), within=20)
    await live.should_see("Deleted Act NPU.")
    with pytest.raises(NotFound):
        await catalog().get(ADMIN, CUSTOM)


async def test_the_delete_confirmation_names_what_goes_with_the_type_in_korean(live: User) -> None:
    await add_custom()
    await open_devices(live, "ko")
    send(live, "delete", CUSTOM)
    await eventually(lambda: holds(dialog_open(live)))
    said = shown(live, "device-dialog")
    assert "온도 보호 정책" in said and "알림 임계값" in said and "온도 이력" in said, said
    live.find(marker="dialog-cancel").click()


async def test_official_types_offer_no_delete(offline: User) -> None:
    await open_devices(offline)
    for device_type_id, row in rows(offline).items():
        assert row["official"] is True and row["deletable"] is False, device_type_id
    send(offline, "delete", "nvidia-gpu")  # even when asked, no dialog opens
    assert not dialog_open(offline)


# -- reset ---------------------------------------------------------------------------------------------


async def test_resetting_an_official_type_brings_back_its_preset(live: User) -> None:
    await open_devices(live)
    assert rows(live)["nvidia-gpu"]["resettable"] is False  # the preset itself: nothing to reset
    send(live, "toggle", "nvidia-gpu")
    await row_becomes(live, "nvidia-gpu", enabled_on=False, revision=2, resettable=True)

    send(live, "reset", "nvidia-gpu")
    await eventually(
        lambda: holds("Reset NVIDIA GPU (nvidia-gpu) to its preset?" in shown(live, "dialog-title"))
    )
    live.find(marker="dialog-confirm").click()
    await row_becomes(live, "nvidia-gpu", enabled_on=True, revision=1, resettable=False)
    await live.should_see("Reset NVIDIA GPU to its preset.")
    restored = await catalog().get(ADMIN, "nvidia-gpu")
    assert restored.enabled is True and restored.revision == 1


# -- a conflicting edit --------------------------------------------------------------------------------


async def test_a_change_made_elsewhere_is_a_conflict_with_a_reload(live: User) -> None:
    await add_custom()
    await open_devices(live)
    elsewhere = await catalog().get(ADMIN, CUSTOM)
    update = importlib.import_module("nufi.ui.parts.device_actions").with_enabled(elsewhere, True)
    await catalog().update(ADMIN, CUSTOM, update.model_copy(update={"name": "Act NPU v2"}))

    send(live, "toggle", CUSTOM)
    row = await row_becomes(live, CUSTOM, note_reload=True)
    assert "Someone else changed this type" in row["note"] and "revision 2" in row["note"]
    assert (await catalog().get(ADMIN, CUSTOM)).enabled is True  # nothing was saved over their change

    send(live, "reload", CUSTOM)
    await row_becomes(live, CUSTOM, note="", name="Act NPU v2", revision=2)
    send(live, "toggle", CUSTOM)
    await row_becomes(live, CUSTOM, enabled_on=False, revision=3)


async def test_a_delete_after_a_change_elsewhere_says_so_in_the_dialog(live: User) -> None:
    await add_custom()
    await open_devices(live)
    elsewhere = await catalog().get(ADMIN, CUSTOM)
    update = importlib.import_module("nufi.ui.parts.device_actions").with_enabled(elsewhere, False)
    await catalog().update(ADMIN, CUSTOM, update, force=True)

    send(live, "delete", CUSTOM)
    await eventually(lambda: holds(dialog_open(live)))
    live.find(marker="dialog-confirm").click()
    await eventually(
        lambda: holds("Someone else changed this type" in shown(live, "dialog-error")), within=20
    )
    assert (await catalog().get(ADMIN, CUSTOM)).revision == 2  # still there
    live.find(marker="dialog-reload").click()
    await row_becomes(live, CUSTOM, enabled_on=False, revision=2, note="")
    await eventually(lambda: holds(not dialog_open(live)))


# -- the audit ------------------------------------------------------------------------------------------


async def test_the_audit_page_lists_the_change_with_its_changed_field(live: User) -> None:
    await add_custom()
    await open_devices(live)
    send(live, "toggle", CUSTOM)
    await row_becomes(live, CUSTOM, enabled_on=False)

    await live.open("/admin/audit")
    # The action and the type by name, not their ids.
    await live.should_see("Type changed")
    assert "Act NPU" in shown(live, "audit-target").splitlines()
    # Only what changed, in words: the revision counter is bookkeeping, not a change.
    changes = shown(live, "audit-change")
    assert changes.splitlines() == ["Enabled: on → off"]
    # The create: what it made, field by field.
    await live.should_see("Created with:")
    assert "Name: Act NPU" in shown(live, "audit-held").splitlines()


# -- who may ------------------------------------------------------------------------------------------


async def test_a_user_who_is_not_an_admin_sees_none_of_it(offline: User) -> None:
    await as_(offline, "user", "en").open(DEVICES)
    await offline.should_see("You do not have access")
    await offline.should_not_see(kind=ui.table)
    await offline.should_not_see(marker="device-dialog")
    await offline.should_not_see("Delete")
    await offline.should_not_see("Reset to preset")
    await as_(offline, "user", "en").open("/admin/audit")
    await offline.should_see("You do not have access")
    await offline.should_not_see(marker="audit-changes")
