"""The health expression in Admin → Devices → Add Device and Edit, through NiceGUI's simulated user:
tried on the session's real Prometheus with its Test like every metric, values other than 1 and 0
named, shown in the review, saved, and prefilled and changed when a stored type is edited. Step 2's
samples come from more than one node, and memory reads as a size.

`live` is the dashboard over a dev cluster whose nodes offer `example.com/wiz` and the session's real
Prometheus, whose `vector()` and `label_replace` make series of any shape without an exporter.
"""

from __future__ import annotations

from nicegui.testing import User

from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import DeviceType, DeviceTypeCreate
from nufi.ui.i18n import text
from support.polling import eventually, until

from .people import PEOPLE
from .wizard_steps import at_step, fill_identity, open_wizard, sees
from .wizard_world import WIZARD_KEY, as_, attached_services, input_of, shown

ADMIN = PEOPLE["admin"]
WITHIN = 20.0


def labelled(value: float, node: str = "wiz-1", device: str = "d0") -> str:
    """One series of `value` on `device` of `node`."""
    inner = f'label_replace(vector({value}), "node", "{node}", "", "")'
    return f'label_replace({inner}, "device", "{device}", "", "")'


def _catalog() -> DeviceCatalog:
    found: DeviceCatalog = attached_services().catalog
    return found


async def _stored(device_type_id: str, revision: int = 1) -> DeviceType:
    async def at_revision() -> DeviceType | None:
        # The save runs in the page's click handler: until it has, there is no such type.
        found = next((kind for kind in await _catalog().list(ADMIN) if kind.id == device_type_id), None)
        return found if found is not None and found.revision == revision else None

    return await until(at_revision, within=WITHIN)


async def _labels(user: User) -> None:
    user.find(marker="labels.node").type("node")
    user.find(marker="labels.device").type("device")


async def test_health_is_tested_named_when_not_0_or_1_reviewed_and_saved(live: User) -> None:
    await open_wizard(live, "en", 1)
    await fill_identity(live)
    await eventually(sees(live, "key-result", "✓ Detected in the cluster."), within=15)
    live.find(marker="wizard-forward").click()
    await at_step(live, 2)
    await _labels(live)
    live.find(marker="metrics.utilization").type(labelled(42))
    health = input_of(live, "metrics.health")
    assert health.props["label"] == text("en", "wizard.metric.health") + " (optional)"
    assert "1 while it is healthy, 0 when it is not" in str(health.props["hint"])

    # A count of errors is not a health: the values seen are named, with what a health gives.
    health.set_value(labelled(3))
    live.find(marker="test-metrics.health").click()
    await eventually(
        sees(
            live, "result-metrics.health", "1 of 1 values look implausible (e.g. 3)", "1 for a healthy device"
        ),
        within=WITHIN,
    )
    health.set_value(labelled(1))
    live.find(marker="test-metrics.health").click()
    await eventually(
        sees(live, "result-metrics.health", "✓ The expression works.", "wiz-1 d0 1"), within=WITHIN
    )
    assert "implausible" not in shown(live, "result-metrics.health")

    live.find(marker="wizard-forward").click()
    await at_step(live, 3)
    assert labelled(1) in shown(live, "review-metrics.health")
    live.find(marker="wizard-forward").click()
    saved = await _stored("wizard-npu")
    assert saved.metrics.health == labelled(1)


async def test_editing_a_type_shows_its_health_and_saves_the_change(live: User) -> None:
    payload = DeviceTypeCreate.model_validate(
        {
            "id": "healthy-npu",
            "name": "Healthy NPU",
            "vendor": "Example",
            "resource_key": WIZARD_KEY,
            "labels": {"node": "node", "device": "device"},
            "metrics": {"utilization": labelled(42), "health": labelled(1)},
        }
    )
    before = (await _catalog().create(ADMIN, payload)).device_type
    await as_(live, "admin", "en").open("/admin/devices/healthy-npu/edit")
    await at_step(live, 1)
    live.find(marker="wizard-forward").click()
    await at_step(live, 2)
    health = input_of(live, "metrics.health")
    assert health.value == labelled(1)  # the stored expression, editable like the others
    assert not health.props.get("readonly")
    health.set_value(f"({labelled(0)}) == bool 0")
    live.find(marker="wizard-forward").click()
    await at_step(live, 3)
    assert "== bool 0" in shown(live, "review-metrics.health")
    live.find(marker="wizard-forward").click()
    after = await _stored("healthy-npu", before.revision + 1)
    assert after.metrics.health == f"({labelled(0)}) == bool 0"


async def test_samples_come_from_every_node_and_memory_reads_as_a_size(live: User) -> None:
    await open_wizard(live, "ko", 2)
    await _labels(live)
    # Four devices on the first node, one on the second: the second is among the samples.
    devices = [("wiz-1", f"d{index}") for index in range(4)] + [("wiz-2", "d0")]
    used = " or ".join(labelled(34359738, node, device) for node, device in devices)
    live.find(marker="metrics.memory.used").type(used)
    input_of(live, "metrics.memory.second").set_value(labelled(17179869184))
    live.find(marker="test-metrics.memory.used").click()
    await eventually(
        sees(live, "result-metrics.memory.used", "✓ 식이 동작합니다.", "시리즈 5개"), within=WITHIN
    )
    samples = shown(live, "result-metrics.memory.used")
    assert "wiz-2 d0 32.8 MiB" in samples and "wiz-1 d0 32.8 MiB" in samples, samples
    assert "34,359,738" not in samples
    assert "wiz-1 d0 16.0 GiB" in shown(live, "result-metrics.memory.second")
