"""What applying a pack would change: leaf paths, sections a pack leaves out, revisions."""

from __future__ import annotations

from typing import Any

import pytest

from nufi.alerts.thresholds import AlertThresholds, HotRule
from nufi.devices.presets import official_preset
from nufi.devices.spec import DeviceType
from nufi.errors import Conflict
from nufi.packs.diff import Change, changes
from nufi.packs.export import pack_of
from nufi.packs.model import DevicePack
from nufi.packs.plan import deletion, plan_of


def _atom() -> DeviceType:
    preset = official_preset("rebellions-atom")
    assert preset is not None
    return preset


ATOM = _atom()


def atom_pack(**spec: Any) -> DevicePack:
    document = pack_of(ATOM, None, AlertThresholds(hot=HotRule(celsius=80.0))).document()
    document["spec"].update(spec)
    return DevicePack.model_validate(document)


def stored(**changes: Any) -> tuple[DeviceType, DevicePack]:
    device_type = ATOM.model_copy(update=changes)
    return device_type, pack_of(device_type, None, AlertThresholds(hot=HotRule(celsius=80.0)))


def test_changes_are_the_differing_leaves_by_path() -> None:
    before = {"a": {"b": 1, "c": [1, 2]}, "gone": 1}
    after = {"a": {"b": 2, "c": [1, 3], "new": {"x": 1}}}
    assert changes(before, after, "spec") == [
        Change(path="spec.a.b", before=1, after=2),
        Change(path="spec.a.c", before=[1, 2], after=[1, 3]),
        Change(path="spec.a.new", before=None, after={"x": 1}),
        Change(path="spec.gone", before=1, after=None),
    ]
    assert changes(after, after, "spec") == []


def test_the_same_pack_is_unchanged() -> None:
    plan = plan_of(0, atom_pack(), *stored())
    assert (plan.result.action, plan.result.changes) == ("unchanged", [])
    assert not plan.changed() and not plan.changed("alerts")


def test_a_changed_threshold_is_one_change_of_the_alerts_only() -> None:
    plan = plan_of(0, atom_pack(alerts={"hot": {"celsius": 85.0}}), *stored())
    assert plan.result.action == "updated"
    assert plan.result.changes == [Change(path="spec.alerts.hot.celsius", before=80.0, after=85.0)]
    assert plan.changed("alerts") and not plan.changed() and not plan.changed("protection")


def test_a_section_the_pack_leaves_out_is_not_managed() -> None:
    document = atom_pack().document()
    del document["spec"]["alerts"]
    plan = plan_of(0, DevicePack.model_validate(document), *stored())
    assert plan.result.action == "unchanged"


def test_a_changed_type_field_is_a_change_of_the_type() -> None:
    plan = plan_of(0, atom_pack(enabled=False), *stored())
    assert plan.result.changes == [Change(path="spec.enabled", before=True, after=False)]
    assert plan.changed() and not plan.changed("alerts")


def test_a_new_type_is_created_with_its_sections() -> None:
    plan = plan_of(0, atom_pack(), None, None)
    assert plan.result.action == "created"
    assert plan.result.changes[0].path == "spec" and plan.result.changes[0].before is None
    assert plan.changed() and plan.changed("alerts") and not plan.changed("protection")


def test_a_deleted_type_shows_what_goes() -> None:
    _, now = stored()
    result = deletion(now)
    assert (result.action, result.changes[0].after) == ("deleted", None)


@pytest.mark.parametrize(
    ("current", "revision", "code"),
    [(True, 3, "device_type.stale"), (False, 1, "pack.revision_of_absent")],
)
def test_a_revision_that_is_not_the_stored_one_conflicts(current: bool, revision: int, code: str) -> None:
    document = atom_pack().document()
    document["metadata"]["revision"] = revision
    with pytest.raises(Conflict) as caught:
        plan_of(0, DevicePack.model_validate(document), *(stored() if current else (None, None)))
    assert (caught.value.code, caught.value.extra["field"]) == (code, "documents[0].metadata.revision")


def test_the_stored_revision_applies() -> None:
    document = atom_pack(enabled=False).document()
    document["metadata"]["revision"] = 1
    assert plan_of(0, DevicePack.model_validate(document), *stored()).result.action == "updated"
