"""An audit record's changes as lines a person reads: field names, device type names, units and on/off
words in the reader's language, never the stored JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nufi.devices.audit import ABSENT, LeafChange
from nufi.ui.i18n import Translator

# Every field a writer records (`nufi.db.audit.ACTIONS`' states), each worded `audit.field.<name>`; a
# test holds the states the writers make to this list.
FIELDS = (
    # Device types
    "id", "name", "vendor", "kind", "enabled", "resource_key", "fetcher", "labels", "node", "device",
    "pod", "namespace", "metrics", "utilization", "memory", "mode", "used", "total", "free", "unit",
    "temperature", "power", "health", "thermal", "threshold_celsius", "recover_celsius",
    "sustain_seconds", "dependents", "thermal_policy", "alert_thresholds", "thermal_events",
    # Thermal policies and alert thresholds
    "trip_celsius", "resume_celsius", "trip_hold_seconds", "resume_hold_seconds", "scope",
    "allow_full_shutoff", "taint_node", "overrides_may_disable", "override_max_trip_celsius",
    "unhealthy", "custom", "expression", "trip_at", "resume_at", "breaker", "max_node_share",
    "max_replica_share", "hot", "celsius", "for_seconds", "percent", "exporter_down",
    "missing_device", "breaker_held",
    # Projects, quotas and workloads
    "members", "devices", "resource_keys", "storage", "pods", "image", "device_type", "count",
    "storage_gib", "backend", "replicas", "port", "running", "value",
    # What the circuit breaker held back
    "allowed", "total_nodes", "affected", "cut", "held_back", "previously_held_back",
)  # fmt: skip
# Fields whose value is one of a few words, each worded `audit.value.<field>.<value>`.
WORDED: dict[str, tuple[str, ...]] = {
    "kind": ("official", "custom", "jupyter", "vscode"),
    "mode": ("used_total", "used_free"),
    "scope": ("node", "device"),
    "backend": ("notebook", "statefulset"),
}
# Maps keyed by device type id: the key is shown as the type's name.
PER_TYPE = frozenset({"devices", "resource_keys"})
# Fields whose value is a device type id.
_TYPE_VALUED = frozenset({"device_type"})
_NOTHING = "—"


def change_line(t: Translator, change: LeafChange, names: Mapping[str, str]) -> str:
    """`field · leaf: before → after`; only the value present when the other side has none at all (a
    creation or a removal lists what it made or removed)."""
    field = " · ".join(_path_words(t, change.path, names))
    if change.before is ABSENT and change.after is not ABSENT:
        return t("audit.line.set", field=field, value=value_words(t, change.path, change.after, names))
    before = value_words(t, change.path, change.before, names)
    return t(
        "audit.line.changed",
        field=field,
        before=before,
        after=value_words(t, change.path, change.after, names),
    )


def _path_words(t: Translator, path: Sequence[str], names: Mapping[str, str]) -> list[str]:
    words = []
    for index, key in enumerate(path):
        if index and path[index - 1] in PER_TYPE:
            words.append(names.get(key, key))
        elif key in FIELDS:
            words.append(t(f"audit.field.{key}"))
        else:
            words.append(key)
    return words


def value_words(t: Translator, path: Sequence[str], value: object, names: Mapping[str, str]) -> str:
    """A value as a person reads it: on/off, a number with its unit, a type's name, a list joined."""
    field = path[-1] if path else ""
    if value is ABSENT or value is None:
        return _NOTHING
    if isinstance(value, bool):
        return t("audit.value.on") if value else t("audit.value.off")
    if isinstance(value, int | float):
        return _with_unit(t, field, value)
    if isinstance(value, str):
        if field in _TYPE_VALUED:
            return names.get(value, value)
        return t(f"audit.value.{field}.{value}") if value in WORDED.get(field, ()) else value
    if isinstance(value, list | tuple):
        return ", ".join(value_words(t, path, item, names) for item in value) or _NOTHING
    if isinstance(value, Mapping):
        said = (
            f"{' · '.join(_path_words(t, [k], names))}: {value_words(t, [k], v, names)}"
            for k, v in value.items()
        )
        return ", ".join(said) or _NOTHING
    return str(value)


def _with_unit(t: Translator, field: str, number: int | float) -> str:
    if field.endswith("celsius"):
        return f"{number} °C"
    if field.endswith("seconds"):
        return t("audit.unit.seconds", count=number)
    if field.endswith("_share"):
        return f"{number * 100:g} %"
    if field == "percent":
        return f"{number} %"
    if field == "storage_gib":
        return f"{number} GiB"
    return str(number)
