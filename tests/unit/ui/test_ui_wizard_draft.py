"""The wizard's draft carries a type's health expression like its other metrics: from a stored type,
back into the save, emptied to remove it, and out of an edit kept before the wizard showed it."""

from __future__ import annotations

import json

from nufi.devices.presets import OFFICIAL_PRESETS
from nufi.ui.wizard.draft import EDIT_KEPT, complete, draft_of, metrics_document, new_draft, update_payload

REBELLIONS = OFFICIAL_PRESETS["rebellions-atom"]


def test_an_edit_shows_the_stored_health_and_saves_what_the_field_holds() -> None:
    assert REBELLIONS.metrics.health
    draft = draft_of(REBELLIONS)
    assert draft["metrics.health"] == REBELLIONS.metrics.health
    assert "health" not in json.loads(draft[EDIT_KEPT])  # shown, so not kept aside
    draft["metrics.health"] = "rbln_npu_health == bool 0"
    assert update_payload(draft).metrics.health == "rbln_npu_health == bool 0"
    draft["metrics.health"] = "  "
    assert update_payload(draft).metrics.health is None  # emptied: the type maps no health


def test_a_new_draft_sends_health_only_when_one_is_typed() -> None:
    draft = new_draft()
    assert metrics_document(draft)["health"] is None
    draft["metrics.health"] = "lpu_health"
    assert metrics_document(draft)["health"] == "lpu_health"


def test_an_edit_kept_before_the_wizard_showed_health_brings_it_into_the_field() -> None:
    draft = draft_of(REBELLIONS)
    kept = json.loads(draft[EDIT_KEPT]) | {"health": "old_health"}
    older = {key: value for key, value in draft.items() if key != "metrics.health"} | {
        EDIT_KEPT: json.dumps(kept)
    }
    assert complete(older)["metrics.health"] == "old_health"
    assert complete(new_draft() | {"metrics.health": "x"})["metrics.health"] == "x"
