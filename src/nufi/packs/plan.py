"""What applying one pack document would do to the stored type, before anything is written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nufi.devices.spec import DeviceType
from nufi.errors import Conflict
from nufi.packs.diff import Action, Change, PackResult, changes
from nufi.packs.export import document_without_revision
from nufi.packs.model import SECTIONS, DevicePack


@dataclass(frozen=True)
class Plan:
    index: int
    pack: DevicePack
    # The type as stored now (None: the pack creates it) and its pack document.
    current: DeviceType | None
    result: PackResult

    @property
    def path(self) -> str:
        return f"documents[{self.index}]"

    def changed(self, section: str | None = None) -> bool:
        """Whether the type's own fields (None) or one section (`protection`, `alerts`) change."""
        if section is not None:
            if self.current is None:
                return getattr(self.pack.spec, section) is not None
            return any(_under(change, f"spec.{section}") for change in self.result.changes)
        if self.current is None:
            return True
        return any(not any(_under(c, f"spec.{s}") for s in SECTIONS) for c in self.result.changes)


def plan_of(index: int, pack: DevicePack, current: DeviceType | None, now: DevicePack | None) -> Plan:
    """The plan for `pack` given the stored type `current` and its pack `now`; a revision in the
    pack's metadata that is not the stored one conflicts, as a stale devices PUT does."""
    wanted = pack.metadata.revision
    field = f"documents[{index}].metadata.revision"
    if wanted is not None and current is None:
        raise Conflict(
            code="pack.revision_of_absent", field=field, device_type=pack.name, expected_revision=wanted
        )
    if wanted is not None and current is not None and current.revision != wanted:
        raise Conflict(
            code="device_type.stale",
            field=field,
            device_type=pack.name,
            current_revision=current.revision,
            expected_revision=wanted,
        )
    after = document_without_revision(pack)
    if now is None:
        return Plan(index, pack, None, PackResult(name=pack.name, action="created", changes=[_whole(after)]))
    before = now.document()
    # A section the pack leaves out is not managed by it: whatever is stored stays.
    for section in SECTIONS:
        if section not in after["spec"] and section in before["spec"]:
            after["spec"][section] = before["spec"][section]
    found = changes(before["spec"], after["spec"], "spec")
    action: Action = "updated" if found else "unchanged"
    return Plan(index, pack, current, PackResult(name=pack.name, action=action, changes=found))


def deletion(now: DevicePack) -> PackResult:
    return PackResult(
        name=now.name, action="deleted", changes=[Change(path="spec", before=now.document()["spec"])]
    )


def _whole(document: dict[str, Any]) -> Change:
    return Change(path="spec", before=None, after=document["spec"])


def _under(change: Change, prefix: str) -> bool:
    return change.path == prefix or change.path.startswith(prefix + ".")
