"""A device type as a pack document: what export serves and what apply compares a pack with."""

from __future__ import annotations

from typing import Any

from nufi.alerts.thresholds import AlertThresholds
from nufi.devices.spec import DeviceType
from nufi.packs.model import API_VERSION, KIND, DevicePack, PackMetadata, PackSpec
from nufi.thermal.policy import ThermalPolicy

# What the catalog adds to a type that a pack does not carry: identity and bookkeeping.
_SERVER_FIELDS = {"id", "kind", "revision"}


def pack_of(
    device_type: DeviceType, protection: ThermalPolicy | None, alerts: AlertThresholds | None
) -> DevicePack:
    """The pack of a type; `protection` and `alerts` only where an admin has set them (None: the
    type follows its defaults, and the pack leaves them out)."""
    fields: dict[str, Any] = device_type.model_dump(exclude=_SERVER_FIELDS)
    spec = PackSpec.model_validate({**fields, "protection": protection, "alerts": alerts})
    return DevicePack(
        apiVersion=API_VERSION, kind=KIND, metadata=PackMetadata(name=device_type.id), spec=spec
    )


def document_without_revision(pack: DevicePack) -> dict[str, Any]:
    """The canonical document of `pack` as export would give it: no revision in its metadata."""
    document = pack.document()
    document["metadata"].pop("revision", None)
    return document
