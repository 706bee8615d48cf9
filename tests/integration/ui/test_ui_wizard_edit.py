"""Admin → Devices → Edit as an admin meets it, through NiceGUI's simulated user (no browser): the
same three steps prefilled from the stored type, Save changes through the catalog's `update` with the
revision the edit started from, an official type's identity read-only, a conflicting edit with its
Reload, who may open it, and an id that names no type.

`live` is the dashboard over a dev cluster whose nodes offer `example.com/wiz` and `nvidia.com/gpu`
and the session's real Prometheus (whose `vector()` and `label_replace` make series of any shape
without an exporter); `offline` has neither.
"""

from __future__ import annotations

from nicegui import background_tasks, ui
from nicegui.testing import User

from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceType, DeviceTypeCreate, DeviceTypeUpdate
from nufi.ui.wizard.kept import SAVE_TASK_NAME
from support.polling import eventually, until

from .people import PEOPLE
from .wizard_steps import draft_id, drafts, sees
from .wizard_world import (
    WIZARD_KEY,
    as_,
    attached_services,
    input_of,
    shown,
)

ADMIN = PEOPLE["admin"]
CUSTOM = "edit-npu"
OFFICIAL = "nvidia-gpu"
# One series per device with the node and device labels, at a value of the caller's choosing.
LABELLED = 'label_replace(label_replace(vector({value}), "node", "wiz-1", "", ""), "device", "d0", "", "")'


def _catalog() -> DeviceCatalog:
    found: DeviceCatalog = attached_services().catalog
    return found


async def _add_custom() -> DeviceType:
    payload = DeviceTypeCreate.model_validate(
        {
            "id": CUSTOM,
            "name": "Edit NPU",
            "vendor": "Example",
            "resource_key": WIZARD_KEY,
            "labels": {"node": "node", "device": "device"},
            "metrics": {"utilization": LABELLED.format(value=42), "temperature": LABELLED.format(value=60)},
        }
    )
    return (await _catalog().create(ADMIN, payload)).device_type


def _no_save_pending() -> None:
    assert not [task for task in background_tasks.running_tasks if task.get_name() == SAVE_TASK_NAME]


async def _step(user: User, number: int) -> None:
    await eventually(sees(user, "wizard-current-step", f"{number}."), within=10)


async def _open_edit(user: User, device_type_id: str, language: str = "en") -> None:
    await as_(user, "admin", language).open(f"/admin/devices/{device_type_id}/edit")
    await _step(user, 1)


async def _forward(user: User, step: int) -> None:
    user.find(marker="wizard-forward").click()
    await _step(user, step)


def _readonly(user: User, marker: str) -> bool:
    return bool(input_of(user, marker).props.get("readonly"))


def _forward_text(user: User) -> str:
    (button,) = user.find(marker="wizard-forward").elements
    assert isinstance(button, ui.button)
    return str(button.text)


async def _stored(device_type_id: str, revision: int) -> DeviceType:
    """The stored type once it is at `revision` (the save runs in the page's click handler)."""

    async def at_revision() -> DeviceType:
        found = await _catalog().get(ADMIN, device_type_id)
        assert found.revision == revision, (found.revision, revision)
        return found

    return await until(at_revision, within=20)


# -- editing a custom type ------------------------------------------------------------------------------


async def test_an_admin_edits_a_custom_types_temperature_and_the_catalog_has_it(live: User) -> None:
    before = await _add_custom()
    await _open_edit(live, CUSTOM)
    draft = draft_id(live)
    assert draft  # the edit has a draft of its own, in the URL
    await eventually(sees(live, "wizard-title", "Edit the device type Edit NPU"), within=5)
    await eventually(sees(live, "edit-revision", "revision 1"), within=5)
    assert input_of(live, "name").value == "Edit NPU"
    assert input_of(live, "resource_key").value == WIZARD_KEY
    assert _readonly(live, "id") and not _readonly(live, "name")  # a stored type keeps its id
    await eventually(sees(live, "key-result", "✓ Detected in the cluster."), within=15)  # the live check

    await _forward(live, 2)
    temperature = input_of(live, "metrics.temperature")
    assert temperature.value == LABELLED.format(value=60)
    temperature.set_value(LABELLED.format(value=71))
    live.find(marker="test-metrics.temperature").click()
    await eventually(sees(live, "result-metrics.temperature", "✓ The expression works.", "wiz-1 d0 71"))

    await _forward(live, 3)
    assert LABELLED.format(value=71) in shown(live, "review")
    assert _forward_text(live) == "Save changes"
    live.find(marker="wizard-forward").click()

    after = await _stored(CUSTOM, before.revision + 1)
    assert after.metrics.temperature == LABELLED.format(value=71)
    assert after.metrics.utilization == before.metrics.utilization and after.name == before.name

    def listed() -> None:
        (table,) = live.find(kind=ui.table).elements
        assert CUSTOM in {row["id"] for row in table.rows}

    await eventually(listed, within=20)  # back on the device list
    assert await drafts().get(ADMIN, draft) is None  # the draft is gone


# -- an official type: identity read-only, labels and metrics editable ----------------------------------


async def test_an_official_types_identity_cannot_change_but_its_labels_can(live: User) -> None:
    preset = await _catalog().get(ADMIN, OFFICIAL)
    await _open_edit(live, OFFICIAL)
    await eventually(sees(live, "edit-official", "cannot change"), within=5)
    for slot in ("id", "name", "vendor", "resource_key"):
        assert _readonly(live, slot), slot
    assert input_of(live, "name").value == "NVIDIA GPU"
    input_of(live, "name").set_value("Renamed GPU")  # not bound to the draft: it goes nowhere
    await eventually(sees(live, "key-result", "✓ Detected in the cluster."), within=15)

    await _forward(live, 2)
    assert input_of(live, "labels.node").value == preset.labels.node
    assert not _readonly(live, "labels.node")
    edits = {
        "labels.node": "node",
        "labels.device": "device",
        "labels.pod": "",
        "labels.namespace": "",
        "metrics.utilization": LABELLED.format(value=40),
        "metrics.memory.used": LABELLED.format(value=1024),
        "metrics.memory.second": LABELLED.format(value=2048),  # the preset's mode: used & free
        "metrics.temperature": LABELLED.format(value=55),
        "metrics.power": LABELLED.format(value=250),
    }
    for slot, value in edits.items():
        input_of(live, slot).set_value(value)

    await _forward(live, 3)
    review = shown(live, "review")
    assert "NVIDIA GPU" in review and "Renamed GPU" not in review
    live.find(marker="wizard-forward").click()

    after = await _stored(OFFICIAL, preset.revision + 1)
    assert (after.name, after.vendor, after.resource_key) == (preset.name, preset.vendor, preset.resource_key)
    assert after.fetcher == preset.fetcher and after.thermal == preset.thermal  # kept though not shown
    assert after.labels.node == "node" and after.labels.device == "device" and after.labels.pod is None
    assert after.metrics.memory is not None and after.metrics.memory.free == LABELLED.format(value=2048)
    assert preset.metrics.memory is not None and after.metrics.memory.unit == preset.metrics.memory.unit


# -- a conflicting edit ----------------------------------------------------------------------------------


async def test_a_conflicting_edit_says_so_and_reload_brings_in_the_other_change(live: User) -> None:
    await _add_custom()
    await _open_edit(live, CUSTOM)
    await _forward(live, 2)
    input_of(live, "metrics.temperature").set_value(LABELLED.format(value=65))  # mine
    await _forward(live, 3)

    # Someone else saves the type meanwhile: a power expression, revision 2.
    current = await _catalog().get(ADMIN, CUSTOM)
    theirs = current.model_dump(mode="json", exclude={"id", "kind", "revision"})
    theirs["metrics"]["power"] = LABELLED.format(value=300)
    await _catalog().update(
        ADMIN, CUSTOM, DeviceTypeUpdate.model_validate({**theirs, "revision": current.revision})
    )

    live.find(marker="wizard-forward").click()
    await eventually(
        sees(live, "edit-stale", "Someone else changed this type: now revision 2, you started from 1"),
        within=15,
    )
    await _step(live, 3)  # still in the wizard
    assert (await _catalog().get(ADMIN, CUSTOM)).metrics.temperature == LABELLED.format(value=60)

    live.find(marker="edit-reload").click()
    await eventually(sees(live, "edit-revision", "revision 2"), within=10)
    await _step(live, 3)
    await live.should_not_see(marker="edit-stale")
    review = shown(live, "review")
    assert LABELLED.format(value=300) in review  # their change is in
    assert LABELLED.format(value=65) not in review  # mine is to be applied again

    await eventually(_no_save_pending, within=5)
    await live.open(f"/admin/devices/{CUSTOM}/edit?step=2&draft={draft_id(live)}")
    await _step(live, 2)
    input_of(live, "metrics.temperature").set_value(LABELLED.format(value=65))
    await _forward(live, 3)
    live.find(marker="wizard-forward").click()

    after = await _stored(CUSTOM, 3)
    assert after.metrics.power == LABELLED.format(value=300)
    assert after.metrics.temperature == LABELLED.format(value=65)


# -- who may open it, and what it opens -----------------------------------------------------------------


async def test_a_user_who_is_not_an_admin_is_refused_the_edit(offline: User) -> None:
    for step in (1, 2, 3):
        await as_(offline, "user", "en").open(f"/admin/devices/{OFFICIAL}/edit?step={step}")
        await offline.should_see("You do not have access")
        await offline.should_not_see(marker="name")
        await offline.should_not_see(marker="wizard-forward")


async def test_an_unknown_id_says_the_type_does_not_exist(offline: User) -> None:
    await as_(offline, "admin", "en").open("/admin/devices/no-such-npu/edit")
    await eventually(sees(offline, "edit-not-found", "The device type no-such-npu does not exist."), within=5)
    await offline.should_not_see(marker="wizard-forward")
    await as_(offline, "admin", "ko").open("/admin/devices/no-such-npu/edit?step=2")
    await eventually(sees(offline, "edit-not-found", "존재하지 않습니다"), within=5)


async def test_each_row_of_the_device_list_links_to_its_edit(offline: User) -> None:
    await as_(offline, "admin", "en").open("/admin/devices")

    def edit_url() -> str:
        (table,) = offline.find(kind=ui.table).elements
        url: str = {row["id"]: row for row in table.rows}[OFFICIAL]["edit_url"]
        return url

    url = await eventually(edit_url, within=10)
    assert url == f"/admin/devices/{OFFICIAL}/edit"
    await offline.open(url)
    await _step(offline, 1)
    assert input_of(offline, "name").value == "NVIDIA GPU"
    await offline.should_see("Edit the device type NVIDIA GPU")
