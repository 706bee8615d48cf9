"""English texts of Admin → Devices: the device types, their actions, and Audit's changed fields."""

TEXTS: dict[str, str] = {
    "devices.title": "Devices",
    "devices.add": "Add Device",
    "devices.column.name": "Name",
    "devices.column.vendor": "Vendor",
    "devices.column.resource_key": "Resource key",
    "devices.column.kind": "Kind",
    "devices.column.nodes": "Nodes",
    "devices.column.capacity": "Capacity / allocatable / allocated",
    "devices.column.enabled": "Enabled",
    "devices.kind.official": "Official",
    "devices.kind.custom": "Custom",
    "devices.inventory_error": "The cluster could not be read: {detail}",
    "devices.column.actions": "Actions",
    "devices.action.toggle": "Enable or disable",
    "devices.action.delete": "Delete",
    "devices.action.reset": "Reset to preset",
    "devices.action.cancel": "Cancel",
    "devices.action.reload": "Reload the list",
    "devices.action.enable_anyway": "Enable without the checks",
    "devices.delete.title": "Delete the device type {name} ({id})?",
    "devices.delete.body": (
        "This cannot be undone; the type also leaves monitoring. Its temperature protection policy,"
        " its alert thresholds and its temperature history are deleted with it: a type registered"
        " again under this id starts from the defaults."
    ),
    "devices.reset.title": "Reset {name} ({id}) to its preset?",
    "devices.reset.body": (
        "Every change admins made to it (enabled, labels, metrics, thermal) is dropped, "
        "back to the vendor's preset."
    ),
    "devices.done.enabled": "Enabled {name}.",
    "devices.done.disabled": "Disabled {name}.",
    "devices.done.deleted": "Deleted {name}.",
    "devices.done.reset": "Reset {name} to its preset.",
    "devices.error.stale": (
        "Someone else changed this type since the list was shown (now revision {current}, "
        "the list showed {shown}). Reload the list and try again."
    ),
    "devices.error.not_found": "This device type no longer exists. Reload the list.",
    "devices.error.conflict": "This cannot be done now.",
    "devices.error.invalid": "Not saved: the type did not pass its checks.",
    "devices.error.unavailable": "Not saved: a service NuFi needs cannot be reached.",
    "devices.error.forbidden": "This needs the nufi-admin role.",
    "devices.error.unexpected": (
        "It could not be done. Try again in a moment; if it keeps failing, check the server's log."
    ),
}
