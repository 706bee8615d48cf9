"""The Add Device wizard's draft and how it becomes what the catalog takes.

A draft is a flat dict of strings keyed by the dotted field paths the catalog's errors name
(`resource_key`, `labels.node`, `metrics.memory.used`), so an error from any layer (the models'
validation, a check, a save) lands on the input that holds the value. Both memory seconds are kept
(`metrics.memory.total` and `metrics.memory.free`): switching the mode back and forth loses nothing,
and only the one of the chosen mode is sent.

Every input of the page has a *slot* (`SLOTS`); `slot_of` maps the field an error names to the
slot that shows it, None for an error that belongs at the top of the page.

A draft that edits a stored type (`draft_of`) also holds the type's id, the revision it started from,
its kind, and what the wizard does not show (enabled, thermal, fetcher) as JSON under `edit.kept`, so
Save changes sends the whole type back with only what was edited changed. The health expression is
shown and edited like the other metrics (`metrics.health`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, MutableMapping

from pydantic import ValidationError

from nufi.devices.said import said_of_error
from nufi.devices.spec import (
    GENERIC_FETCHER,
    DeviceType,
    DeviceTypeCreate,
    DeviceTypeUpdate,
    LabelsDraft,
    MemoryMode,
    MetricKey,
    MetricsDraft,
)
from nufi.devices.units import MemoryUnit
from nufi.devices.validation_errors import field_errors
from nufi.errors import NufiError
from nufi.messages import Message
from nufi.ui.parts.errors import field_of

Draft = MutableMapping[str, str]

IDENTITY_SLOTS = ("id", "name", "vendor", "resource_key")
LABEL_SLOTS = ("labels.node", "labels.device", "labels.pod", "labels.namespace")
# The second memory expression's slot shows errors about total, free, or the mode.
MEMORY_SECOND = "metrics.memory.second"
METRIC_SLOTS = (
    "metrics.utilization",
    "metrics.memory.used",
    MEMORY_SECOND,
    "metrics.memory.unit",
    "metrics.temperature",
    "metrics.power",
    "metrics.health",
)
# Errors about a whole group (e.g. a save's "labels" refusal) show above the group's inputs.
GROUP_SLOTS = ("labels", "metrics")
SLOTS = (*IDENTITY_SLOTS, *LABEL_SLOTS, *METRIC_SLOTS, *GROUP_SLOTS)
STEP_SLOTS: dict[int, tuple[str, ...]] = {
    1: IDENTITY_SLOTS,
    2: (*LABEL_SLOTS, *METRIC_SLOTS, *GROUP_SLOTS),
    3: (),
}
MEMORY_MODES: tuple[MemoryMode, ...] = ("used_total", "used_free")
# Which slot shows the check result of each quantity the catalog reports.
RESULT_SLOT: dict[MetricKey, str] = {
    "utilization": "metrics.utilization",
    "memory_used": "metrics.memory.used",
    "memory_total": MEMORY_SECOND,
    "memory_free": MEMORY_SECOND,
    "temperature": "metrics.temperature",
    "power": "metrics.power",
    "health": "metrics.health",
}

_TEXT_FIELDS = (
    "id",
    "name",
    "vendor",
    "resource_key",
    *LABEL_SLOTS,
    "metrics.utilization",
    "metrics.memory.used",
    "metrics.memory.total",
    "metrics.memory.free",
    "metrics.temperature",
    "metrics.power",
    "metrics.health",
)


def new_draft() -> dict[str, str]:
    draft = dict.fromkeys(_TEXT_FIELDS, "")
    draft["metrics.memory.mode"] = "used_total"
    draft["metrics.memory.unit"] = MemoryUnit.BYTES.value
    return draft


def complete(draft: Draft) -> Draft:
    """`draft` with every field present (a draft kept from an older page may lack some). An edit kept
    before the wizard showed health held the type's health expression aside: it becomes the field."""
    if not isinstance(draft.get("metrics.health"), str):
        kept = _kept(draft).get("health")
        draft["metrics.health"] = kept if isinstance(kept, str) else ""
    for key, value in new_draft().items():
        if not isinstance(draft.get(key), str):
            draft[key] = value
    return draft


def memory_mode(draft: Mapping[str, str]) -> MemoryMode:
    mode = draft.get("metrics.memory.mode")
    return "used_free" if mode == "used_free" else "used_total"


def second_memory_field(draft: Mapping[str, str]) -> str:
    return "metrics.memory.total" if memory_mode(draft) == "used_total" else "metrics.memory.free"


def slot_of(field: str | None) -> str | None:
    """The slot that shows an error about `field`; None for the top of the page."""
    if not field:
        return None
    if field in SLOTS:
        return field
    if field.startswith("metrics.memory"):
        return "metrics.memory.unit" if field == "metrics.memory.unit" else MEMORY_SECOND
    for group in GROUP_SLOTS:
        if field.startswith(group + "."):
            return group
    return None


def _value(draft: Mapping[str, str], key: str) -> str:
    return draft.get(key, "").strip()


def _optional(draft: Mapping[str, str], key: str) -> str | None:
    return _value(draft, key) or None


def labels_document(draft: Mapping[str, str]) -> dict[str, str | None]:
    return {
        "node": _value(draft, "labels.node"),
        "device": _value(draft, "labels.device"),
        "pod": _optional(draft, "labels.pod"),
        "namespace": _optional(draft, "labels.namespace"),
    }


def metrics_document(draft: Mapping[str, str]) -> dict[str, object]:
    used, second = _value(draft, "metrics.memory.used"), _value(draft, second_memory_field(draft))
    memory: dict[str, str] | None = None
    if used or second:
        mode = memory_mode(draft)
        memory = {"mode": mode, "used": used, "unit": _value(draft, "metrics.memory.unit") or "bytes"}
        # An empty second expression is a missing one: the model says which the mode needs.
        if second:
            memory["total" if mode == "used_total" else "free"] = second
    return {
        "utilization": _value(draft, "metrics.utilization"),
        "memory": memory,
        "temperature": _optional(draft, "metrics.temperature"),
        "power": _optional(draft, "metrics.power"),
        "health": _optional(draft, "metrics.health"),
    }


def slug_of(name: str) -> str:
    """The id a new type takes from its name when the admin gives none, e.g. `HyperAccel LPU` gives
    `hyperaccel-lpu`."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:63].strip("-")


def payload_document(draft: Mapping[str, str]) -> dict[str, object]:
    return {
        "id": _value(draft, "id") or slug_of(draft.get("name", "")),
        "name": _value(draft, "name"),
        "vendor": _value(draft, "vendor"),
        "resource_key": _value(draft, "resource_key"),
        "labels": labels_document(draft),
        "metrics": metrics_document(draft),
    }


class DraftErrors(Exception):
    """The draft does not make the model: per slot (None: the top), what is wrong."""

    def __init__(self, errors: dict[str | None, Message]) -> None:
        super().__init__("; ".join(message.text("en") for message in errors.values()))
        self.errors = errors


def _errors_of(error: ValidationError, prefix: str) -> DraftErrors:
    found: dict[str | None, Message] = {}
    for item in field_errors(error):
        field = f"{prefix}.{item.field}" if prefix and item.field else prefix or item.field
        slot = slot_of(field)
        found.setdefault(slot, item.said)
    return DraftErrors(found)


def check_drafts(draft: Mapping[str, str]) -> tuple[LabelsDraft, MetricsDraft]:
    """What the catalog's metric check takes; DraftErrors for a structure it would refuse (a memory
    mode without its expression, an expression over the parser's bounds)."""
    try:
        labels = LabelsDraft.model_validate(labels_document(draft))
    except ValidationError as exc:
        raise _errors_of(exc, "labels") from None
    try:
        metrics = MetricsDraft.model_validate(metrics_document(draft))
    except ValidationError as exc:
        raise _errors_of(exc, "metrics") from None
    return labels, metrics


def create_payload(draft: Mapping[str, str]) -> DeviceTypeCreate:
    """The document Save sends; DraftErrors naming every field it would be refused for."""
    try:
        return DeviceTypeCreate.model_validate(payload_document(draft))
    except ValidationError as exc:
        raise _errors_of(exc, "") from None


def payload_errors(draft: Mapping[str, str], slots: tuple[str, ...]) -> dict[str | None, Message]:
    """What the model's validation says about the given slots alone (for a step's Next)."""
    try:
        if is_edit(draft):
            update_payload(draft)
        else:
            create_payload(draft)
    except DraftErrors as exc:
        return {slot: message for slot, message in exc.errors.items() if slot in slots}
    return {}


def service_errors(error: NufiError) -> dict[str | None, Message]:
    """Where an error the catalog raised is shown: next to the field it names, else at the top."""
    return {slot_of(field_of(error)): said_of_error(error)}


# -- editing a stored type -------------------------------------------------------------------------------

EDIT_ID = "edit.id"
EDIT_REVISION = "edit.revision"
EDIT_KIND = "edit.kind"
EDIT_KEPT = "edit.kept"
# What an official type's edit may not change: the vendor's identity of it.
OFFICIAL_LOCKED = IDENTITY_SLOTS


def draft_of(device_type: DeviceType) -> dict[str, str]:
    """A draft editing `device_type` as stored: every field the wizard shows, and the rest kept aside."""
    data = device_type.model_dump(mode="json")
    labels, metrics = data["labels"], data["metrics"]
    memory = metrics.get("memory") or {}
    draft = new_draft()
    draft.update(
        {
            "id": device_type.id,
            "name": device_type.name,
            "vendor": device_type.vendor,
            "resource_key": device_type.resource_key,
            **{f"labels.{name}": labels.get(name) or "" for name in ("node", "device", "pod", "namespace")},
            "metrics.utilization": metrics.get("utilization") or "",
            "metrics.temperature": metrics.get("temperature") or "",
            "metrics.power": metrics.get("power") or "",
            "metrics.health": metrics.get("health") or "",
            "metrics.memory.mode": memory.get("mode") or "used_total",
            "metrics.memory.used": memory.get("used") or "",
            "metrics.memory.total": memory.get("total") or "",
            "metrics.memory.free": memory.get("free") or "",
            "metrics.memory.unit": memory.get("unit") or MemoryUnit.BYTES.value,
            EDIT_ID: device_type.id,
            EDIT_REVISION: str(device_type.revision),
            EDIT_KIND: device_type.kind,
            EDIT_KEPT: json.dumps(
                {
                    "enabled": data["enabled"],
                    "thermal": data.get("thermal"),
                    "fetcher": data["fetcher"],
                }
            ),
        }
    )
    return draft


def is_edit(draft: Mapping[str, str]) -> bool:
    return bool(draft.get(EDIT_ID))


def is_official_edit(draft: Mapping[str, str]) -> bool:
    return is_edit(draft) and draft.get(EDIT_KIND) == "official"


def started_revision(draft: Mapping[str, str]) -> int:
    """The revision of the stored type the edit started from (0 when the draft does not say)."""
    value = draft.get(EDIT_REVISION, "")
    return int(value) if value.isdigit() else 0


def _kept(draft: Mapping[str, str]) -> dict[str, object]:
    try:
        kept = json.loads(draft.get(EDIT_KEPT) or "{}")
    except ValueError:
        return {}
    return kept if isinstance(kept, dict) else {}


def fetcher_of(draft: Mapping[str, str]) -> str:
    """The fetcher whose rules the metric checks use: the edited type's, else the generic one."""
    fetcher = _kept(draft).get("fetcher")
    return fetcher if isinstance(fetcher, str) and fetcher else GENERIC_FETCHER


def update_payload(draft: Mapping[str, str]) -> DeviceTypeUpdate:
    """The whole type Save changes sends, with the revision the edit started from; DraftErrors naming
    every field it would be refused for."""
    kept = _kept(draft)
    document = payload_document(draft)
    del document["id"]
    document.update(
        {
            "enabled": kept.get("enabled", True),
            "thermal": kept.get("thermal"),
            "fetcher": kept.get("fetcher") or GENERIC_FETCHER,
            "revision": started_revision(draft),
        }
    )
    try:
        return DeviceTypeUpdate.model_validate(document)
    except ValidationError as exc:
        raise _errors_of(exc, "") from None
